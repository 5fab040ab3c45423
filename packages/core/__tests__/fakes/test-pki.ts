import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {randomBytes, webcrypto} from 'node:crypto';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const EC_ALG = {name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256'};
const DAY_MS = 24 * 60 * 60 * 1000;

/** A test certificate authority (EC P-256). */
export interface TestCa {
  cert: string;
  signingKey: webcrypto.CryptoKey;
  certificate: x509.X509Certificate;
}

/** A leaf certificate and its PKCS#8 key, both PEM. */
export interface TestLeaf {
  cert: string;
  key: string;
}

/** Everything a mutual-TLS test needs: one CA, a server cert for IP 127.0.0.1, a client cert. */
export interface TestPki {
  ca: TestCa;
  server: TestLeaf;
  client: TestLeaf;
}

export async function makeCa(cn: string): Promise<TestCa> {
  const keys = (await webcrypto.subtle.generateKey(EC_ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${cn}`,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + DAY_MS),
    keys,
    signingAlgorithm: EC_ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)
    ]
  });
  return {cert: certificate.toString('pem'), signingKey: keys.privateKey, certificate};
}

export async function makeLeaf(ca: TestCa, kind: 'server' | 'client', cn: string): Promise<TestLeaf> {
  const keys = (await webcrypto.subtle.generateKey(EC_ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([
      kind === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth
    ]),
    await x509.AuthorityKeyIdentifierExtension.create(ca.certificate)
  ];
  if (kind === 'server') {
    extensions.push(
      new x509.SubjectAlternativeNameExtension([
        {type: 'ip', value: '127.0.0.1'},
        {type: 'dns', value: 'localhost'}
      ])
    );
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${cn}`,
    issuer: ca.certificate.subject,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + DAY_MS),
    signingKey: ca.signingKey,
    publicKey: keys.publicKey,
    signingAlgorithm: EC_ALG,
    extensions
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {cert: cert.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')};
}

/** A CA with a server certificate (SAN IP:127.0.0.1, DNS:localhost) and a client certificate. */
export async function makePki(label = 'test'): Promise<TestPki> {
  const ca = await makeCa(`${label} CA`);
  return {
    ca,
    server: await makeLeaf(ca, 'server', `${label} server`),
    client: await makeLeaf(ca, 'client', `${label} client`)
  };
}

function serial(): string {
  // Positive: the top bit of the first byte clear.
  const b = randomBytes(16);
  b[0] = (b[0] ?? 0) & 0x7f;
  return b.toString('hex');
}
