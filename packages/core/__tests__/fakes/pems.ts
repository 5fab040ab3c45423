/**
 * Well-formed but fake PEM blocks (readiness only checks the armor; fake probes never parse them).
 * The key has several body lines of at least 8 characters, and a short last line.
 */
export const TEST_PEMS = {
  ca: '-----BEGIN CERTIFICATE-----\nMIIBfakeCAcertificateBodyLine1\nMIIBfakeCAcertificateBodyLine2\n-----END CERTIFICATE-----\n',
  cert: '-----BEGIN CERTIFICATE-----\nMIIBfakeClientCertBodyLine1\n-----END CERTIFICATE-----\n',
  key: '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49\nAwEHBG0wawIBAQQgSecretKeyLine2xx\nQ==\n-----END PRIVATE KEY-----\n'
};

/** Body lines of TEST_PEMS.key that must be masked (8 characters or more, not armor). */
export const TEST_KEY_SECRET_LINES = ['MIGHAgEAMBMGByqGSM49AgEGCCqGSM49', 'AwEHBG0wawIBAQQgSecretKeyLine2xx'];
