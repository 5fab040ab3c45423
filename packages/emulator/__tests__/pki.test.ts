import {expect, test} from '@jest/globals';
import {createPrivateKey, X509Certificate} from 'node:crypto';
import {corruptPem, generateBuilderPki, generateCa} from '../src/pki.js';

test('a builder gets its own CA, a server and a client certificate signed by it', async () => {
  const pki = await generateBuilderPki({label: 'bld_test', now: Date.UTC(2026, 0, 16, 12, 0, 0)});
  const ca = new X509Certificate(pki.caCert);
  const server = new X509Certificate(pki.serverCert);
  const client = new X509Certificate(pki.clientCert);
  expect(ca.ca).toBe(true);
  expect(ca.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  expect(server.checkIssued(ca) && server.verify(ca.publicKey)).toBe(true);
  expect(client.checkIssued(ca) && client.verify(ca.publicKey)).toBe(true);
  expect(server.subjectAltName).toBe('IP Address:127.0.0.1, DNS:localhost');
  expect(server.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  expect(client.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
  expect(server.checkPrivateKey(createPrivateKey(pki.serverKey))).toBe(true);
  expect(client.checkPrivateKey(createPrivateKey(pki.clientKey))).toBe(true);
  expect(pki.clientKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  // Valid from 5 minutes before `now` (clock skew) for a week: 12:00 − 5 min, and Jan 16 + 7 days.
  for (const cert of [ca, server, client]) {
    expect([new Date(cert.validFrom).toISOString(), new Date(cert.validTo).toISOString()]).toEqual([
      '2026-01-16T11:55:00.000Z',
      '2026-01-23T12:00:00.000Z'
    ]);
  }
});

test('every builder gets fresh material', async () => {
  const [a, b] = await Promise.all([generateBuilderPki({label: 'a'}), generateBuilderPki({label: 'b'})]);
  expect(a.caCert).not.toBe(b.caCert);
  expect(new X509Certificate(a.clientCert).checkIssued(new X509Certificate(b.caCert))).toBe(false);
});

test('corruptPem keeps the armour but breaks the body', async () => {
  const {cert} = await generateCa({label: 'x'});
  const bad = corruptPem(cert);
  expect(bad).toMatch(/^-----BEGIN CERTIFICATE-----\n.*\n-----END CERTIFICATE-----/);
  expect(() => new X509Certificate(bad)).toThrow();
});

test('the server certificate carries the names it is given', async () => {
  const pki = await generateBuilderPki({
    label: 'named',
    serverNames: ['127.0.0.1', 'localhost', 'builder.remote-builder.test', 'localhost', '10.1.2.3']
  });
  const server = new X509Certificate(pki.serverCert);
  expect(server.subjectAltName).toBe(
    'IP Address:127.0.0.1, DNS:localhost, DNS:builder.remote-builder.test, IP Address:10.1.2.3'
  );
  expect(server.checkHost('builder.remote-builder.test')).toBe('builder.remote-builder.test');
  expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
  expect(server.subject).toContain('CN=localhost');
});

test('a server certificate for another name only matches that name', async () => {
  const pki = await generateBuilderPki({label: 'wrong', serverNames: ['wrong-host.invalid']});
  const server = new X509Certificate(pki.serverCert);
  expect(server.subjectAltName).toBe('DNS:wrong-host.invalid');
  expect(server.checkIP('127.0.0.1')).toBeUndefined();
  expect(server.checkIssued(new X509Certificate(pki.caCert))).toBe(true);
  await expect(generateBuilderPki({label: 'none', serverNames: []})).rejects.toThrow('at least one name');
});
