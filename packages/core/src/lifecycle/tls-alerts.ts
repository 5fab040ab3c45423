// Names of TLS alerts and certificate verification errors, for the TLS probe's messages.

/** Alerts (RFC 8446 §6.2) by which a server refuses the client's certificate. */
const CERTIFICATE_ALERTS: Record<number, string> = {
  42: 'bad certificate',
  43: 'unsupported certificate',
  44: 'certificate revoked',
  45: 'certificate expired',
  46: 'certificate unknown',
  48: 'unknown CA',
  49: 'access denied',
  116: 'certificate required'
};

/** Other alerts, named in messages. */
const OTHER_ALERTS: Record<number, string> = {
  0: 'close notify',
  10: 'unexpected message',
  20: 'bad record MAC',
  22: 'record overflow',
  40: 'handshake failure',
  47: 'illegal parameter',
  50: 'decode error',
  51: 'decrypt error',
  70: 'protocol version',
  71: 'insufficient security',
  80: 'internal error',
  86: 'inappropriate fallback',
  90: 'user canceled',
  109: 'missing extension',
  110: 'unsupported extension',
  112: 'unrecognized name',
  113: 'bad certificate status response',
  115: 'unknown PSK identity',
  120: 'no application protocol'
};

/** Texts of the verification errors Node reports as codes (OpenSSL's X509_verify_cert_error_string). */
export const VERIFY_ERRORS: Record<string, string> = {
  UNABLE_TO_GET_ISSUER_CERT: 'unable to get issuer certificate',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'unable to get local issuer certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unable to verify the first certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in certificate chain',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  CERT_SIGNATURE_FAILURE: 'certificate signature failure',
  CERT_NOT_YET_VALID: 'certificate is not yet valid',
  CERT_HAS_EXPIRED: 'certificate has expired',
  CERT_UNTRUSTED: 'certificate not trusted',
  CERT_REJECTED: 'certificate rejected',
  INVALID_CA: 'invalid CA certificate',
  INVALID_PURPOSE: 'unsupported certificate purpose'
};

/** The alert in a TLS error, if it is one: its name and whether it refuses a certificate. */
export function tlsAlert(err: NodeJS.ErrnoException): {name: string; certificate: boolean} | undefined {
  const n = /SSL alert number (\d+)/.exec(err.message ?? '');
  if (n) {
    const num = Number(n[1]);
    if (CERTIFICATE_ALERTS[num]) return {name: CERTIFICATE_ALERTS[num], certificate: true};
    return {name: OTHER_ALERTS[num] ?? `alert ${num}`, certificate: false};
  }
  // e.g. ERR_SSL_TLSV1_ALERT_UNKNOWN_CA, ERR_SSL_SSL/TLS_ALERT_BAD_CERTIFICATE
  const m = /_ALERT_([A-Z0-9_]+)$/.exec(err.code ?? '');
  if (!m) return undefined;
  const name = (m[1] as string).toLowerCase().replace(/_/g, ' ');
  const known = Object.values(CERTIFICATE_ALERTS).find(a => a.toLowerCase() === name);
  return known ? {name: known, certificate: true} : {name, certificate: false};
}
