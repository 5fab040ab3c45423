import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {randomBytes, webcrypto} from 'node:crypto';
import {isIP, isIPv4} from 'node:net';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const EC_ALG = {name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256'};
/** Validity starts a little in the past to tolerate clock skew. */
const BACKDATE_MS = 5 * 60_000;
/** Builders are short-lived; a week is ample (the emulator's choice). */
const VALIDITY_MS = 7 * 24 * 60 * 60_000;

/** A certificate authority: its certificate and (PKCS#8 PEM) key. */
export interface CertificateAuthority {
  cert: string;
  key: string;
  /** @internal the signing key, for issuing leaf certificates. */
  readonly signingKey: webcrypto.CryptoKey;
  /** @internal the parsed certificate, for issuer and key identifier. */
  readonly certificate: x509.X509Certificate;
}

/** BuilderPki is the fresh TLS material of one builder. All values are PEM; keys are PKCS#8. */
export interface BuilderPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

export interface PkiOpts {
  /** Common-name label, e.g. the builder id. */
  label: string;
  /** Validity reference time (epoch ms); real time by default, since TLS peers check real time. */
  now?: number;
}

export interface BuilderPkiOpts extends PkiOpts {
  /**
   * The names the server certificate is valid for (subjectAltName; IP addresses as IP entries, others as
   * DNS names); default DEFAULT_SERVER_NAMES.
   */
  serverNames?: string[];
}

/** The server certificate's names unless told otherwise. */
export const DEFAULT_SERVER_NAMES: readonly string[] = ['127.0.0.1', 'localhost'];

/** The server names of a builder of a profile with this `hostName`: the defaults and it. */
export function serverNames(hostName: string): string[] {
  return [...DEFAULT_SERVER_NAMES, hostName];
}

/** Creates a self-signed EC P-256 CA. */
export async function generateCa(opts: PkiOpts): Promise<CertificateAuthority> {
  const keys = await generateKeys();
  const now = opts.now ?? Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=remote-builder emulator CA ${opts.label}, O=remote-builder-actions emulator`,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + VALIDITY_MS),
    signingAlgorithm: EC_ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)
    ]
  });
  return {
    cert: certificate.toString('pem'),
    key: await exportKey(keys.privateKey),
    signingKey: keys.privateKey,
    certificate
  };
}

/**
 * Creates a builder's material: its own CA, a server certificate (subjectAltName from `serverNames`, by
 * default IP:127.0.0.1 and DNS:localhost; extendedKeyUsage serverAuth) and a client certificate
 * (extendedKeyUsage clientAuth), both signed by the CA.
 */
export async function generateBuilderPki(opts: BuilderPkiOpts): Promise<BuilderPki> {
  const ca = await generateCa(opts);
  const names = [...new Set(opts.serverNames ?? DEFAULT_SERVER_NAMES)];
  if (names.length === 0) throw new Error('A server certificate needs at least one name');
  const [server, client] = await Promise.all([
    issueLeaf(ca, opts, 'server', `CN=${names.find(n => !isIPv4(n)) ?? names[0]}, OU=${opts.label}`, names),
    issueLeaf(ca, opts, 'client', `CN=remote-builder client ${opts.label}`)
  ]);
  return {
    caCert: ca.cert,
    serverCert: server.cert,
    serverKey: server.key,
    clientCert: client.cert,
    clientKey: client.key
  };
}

/** A server or client certificate signed by `ca`, with a fresh key; a server's names go into its subjectAltName. */
export async function issueLeaf(
  ca: CertificateAuthority,
  opts: PkiOpts,
  kind: 'server' | 'client',
  subject: string,
  names: string[] = []
): Promise<{cert: string; key: string}> {
  const keys = await generateKeys();
  const now = opts.now ?? Date.now();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([
      kind === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth
    ]),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(ca.certificate)
  ];
  if (kind === 'server') {
    extensions.push(
      new x509.SubjectAlternativeNameExtension(
        names.map(value => ({type: isIP(value) ? ('ip' as const) : ('dns' as const), value}))
      )
    );
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: ca.certificate.subject,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + VALIDITY_MS),
    signingAlgorithm: EC_ALG,
    publicKey: keys.publicKey,
    signingKey: ca.signingKey,
    extensions
  });
  return {cert: cert.toString('pem'), key: await exportKey(keys.privateKey)};
}

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(EC_ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

async function exportKey(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** A positive 16-byte serial number in hex. */
function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] as number) & 0x7f;
  return bytes.toString('hex');
}

/** Replaces the body of every PEM block with text that is not base64 (for the 'malformed-pem' fault). */
export function corruptPem(pem: string): string {
  return pem.replace(
    /(-----BEGIN [A-Z ]+-----\n)[\s\S]*?(\n-----END [A-Z ]+-----)/g,
    '$1@@ not base64: corrupted by the emulator @@$2'
  );
}
