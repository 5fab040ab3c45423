import {describe, expect, test} from '@jest/globals';
import {registerSecret} from '../src/register-secret.js';
import {TEST_KEY_SECRET_LINES, TEST_PEMS} from './fakes/pems.js';
import {RecordingLogger} from './fakes/recording-logger.js';

function secretsOf(value: string): string[] {
  const logger = new RecordingLogger();
  registerSecret(logger, value);
  return logger.secrets;
}

describe('registerSecret', () => {
  test('a PEM key: the whole value, then every body line of 8+ characters; armor lines are not registered', () => {
    expect(secretsOf(TEST_PEMS.key)).toEqual([TEST_PEMS.key.trim(), ...TEST_KEY_SECRET_LINES]);
  });

  test('a realistic EC key: every base64 line is registered', () => {
    const lines = [
      'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgY2VjcmV0c2VjcmV0',
      'c2VjcmV0c2VjcmV0c2VjcmV0oUQDQgAEyH0zvdZo0lDGqN8Vq2z0kHgLxZ3M3p1q',
      'KKbZ9bUq1PZW6ZnVQ0K8UurlHcS2xr2d7hDIoUfJ3s7gqE9p9k5G7w=='
    ];
    const key = `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
    const secrets = secretsOf(key);
    expect(secrets).toEqual([key.trim(), ...lines]);
    expect(secrets).not.toContain('-----BEGIN PRIVATE KEY-----');
    expect(secrets).not.toContain('-----END PRIVATE KEY-----');
  });

  // prettier-ignore
  test.each<[number, string, string[]]>([
    [1, '', []],
    [2, '  \n ', []],
    [3, 'single-token-value', ['single-token-value', 'single-token-value']],
    [4, '  padded-token  ', ['padded-token', 'padded-token']],
    [5, 'line-one-x\r\nline-two-y\r\n', ['line-one-x\r\nline-two-y', 'line-one-x', 'line-two-y']],
    [6, 'short\nlong-enough', ['short\nlong-enough', 'long-enough']],
    [7, '-----BEGIN EC PRIVATE KEY-----\n  indented-line-x  \n-----END EC PRIVATE KEY-----', ['-----BEGIN EC PRIVATE KEY-----\n  indented-line-x  \n-----END EC PRIVATE KEY-----', 'indented-line-x']],
    [8, '-----BEGIN not armor-----', ['-----BEGIN not armor-----', '-----BEGIN not armor-----']]
  ])('[%d] %o registers %o', (_n, value, expected) => {
    expect(secretsOf(value)).toEqual(expected);
  });
});
