import {expect, test} from '@jest/globals';
import {createPrivateKey, X509Certificate} from 'node:crypto';
import {corruptPem, generateBuilderPki, generateCa} from '../src/pki.js';

test('a builder gets its own CA, a server and a client certificate signed by it', async () => {
  const pki = await generateBuilderPki({label: 'bld_test'});
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
  expect(Date.parse(server.validFrom)).toBeLessThan(Date.now());
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
