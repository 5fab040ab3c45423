import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {randomBytes, webcrypto} from 'node:crypto';
import {isIP} from 'node:net';
import {generateCa} from '../pki.js';

const EC_ALG = {name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256'};
const BACKDATE_MS = 5 * 60_000;
const VALIDITY_MS = 7 * 24 * 60 * 60_000;

/** The TLS material of an HTTPS API: a private CA (what clients must trust) and the server's certificate and key. */
export interface ApiTlsMaterial {
  /** PEM of the private CA: give it to clients (NODE_EXTRA_CA_CERTS). */
  caCert: string;
  /** PEM of the server certificate, signed by the CA. */
  cert: string;
  /** PKCS#8 PEM of the server key. */
  key: string;
}

export interface ApiTlsOpts {
  /** Names (and IP addresses) the certificate is valid for; localhost and 127.0.0.1 are always added. */
  hostnames: string[];
  /** Validity reference time (epoch ms); default now. */
  now?: number;
}

/** Generates a fresh private CA and a serverAuth certificate it signed for the given names. */
export async function generateApiTls(opts: ApiTlsOpts): Promise<ApiTlsMaterial> {
  const now = opts.now ?? Date.now();
  const ca = await generateCa({label: 'API', now});
  const keys = (await webcrypto.subtle.generateKey(EC_ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const names = [...new Set([...opts.hostnames, 'localhost', '127.0.0.1'])];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${opts.hostnames[0] ?? 'localhost'}, O=remote-builder-actions emulator`,
    issuer: ca.certificate.subject,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + VALIDITY_MS),
    signingAlgorithm: EC_ALG,
    publicKey: keys.publicKey,
    signingKey: ca.signingKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca.certificate),
      new x509.SubjectAlternativeNameExtension(
        names.map(n => (isIP(n) ? {type: 'ip' as const, value: n} : {type: 'dns' as const, value: n}))
      )
    ]
  });
  const key = x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  return {caCert: ca.cert, cert: cert.toString('pem'), key};
}

function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] as number) & 0x7f;
  return bytes.toString('hex');
}
