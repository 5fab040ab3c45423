import {generateCa, issueLeaf} from '../pki.js';

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
  const names = [...new Set([...opts.hostnames, 'localhost', '127.0.0.1'])];
  const subject = `CN=${opts.hostnames[0] ?? 'localhost'}, O=remote-builder-actions emulator`;
  const {cert, key} = await issueLeaf(ca, {label: 'API', now}, 'server', subject, names);
  return {caCert: ca.cert, cert, key};
}
