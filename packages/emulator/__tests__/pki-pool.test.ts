import {afterAll, expect, test} from '@jest/globals';
import {X509Certificate} from 'node:crypto';
import {connect} from 'node:tls';
import {Emulator} from '../src/index.js';
import {PkiPool} from '../src/pki-pool.js';
import {serverNames} from '../src/pki.js';

let emu: Emulator | undefined;
afterAll(async () => emu?.close());

test('a pool holds fresh PKIs per set of server names, each given once', async () => {
  const pool = await PkiPool.fill(2, ['localhost', 'b.test', 'b.test']);
  expect(pool.size).toBe(4);
  const first = pool.take(serverNames('b.test'));
  const second = pool.take(serverNames('b.test'));
  expect(pool.take(serverNames('b.test'))).toBeUndefined();
  expect(new X509Certificate(first!.serverCert).subjectAltName).toBe('IP Address:127.0.0.1, DNS:localhost, DNS:b.test');
  expect(new X509Certificate(first!.clientCert).subject).toContain('pooled');
  expect(first!.caCert).not.toBe(second!.caCert);
  expect(pool.take(serverNames('localhost'))).toBeDefined();
  expect(pool.size).toBe(1);
});

test('assignments take pooled material (a working mutual TLS), then make their own once the pool is empty', async () => {
  emu = await Emulator.start({
    profiles: [{name: 'p', architectures: ['amd64']}],
    apiKeys: [{key: 'k', scopes: ['builders']}],
    pkiPool: 1
  });
  const details = async (): Promise<{
    id: string;
    host: string;
    ca: string;
    client_cert: string;
    client_key: string;
  }> => {
    const headers = {authorization: 'Bearer k', accept: 'application/json', 'content-type': 'application/json'};
    const assigned = await fetch(`${emu!.url}/api/v1/builders/assign`, {
      method: 'POST',
      headers,
      body: '{"profile_name":"p"}'
    });
    const id = ((await assigned.json()) as {builder_instances: {id: string}[]}).builder_instances[0]!.id;
    const got = await fetch(`${emu!.url}/api/v1/builders/${id}/details`, {headers});
    return {
      id,
      ...((await got.json()) as {metadata: {host: string; ca: string; client_cert: string; client_key: string}})
        .metadata
    };
  };
  const pooled = await details();
  const made = await details();
  expect(new X509Certificate(pooled.client_cert).subject).toContain('pooled');
  expect(new X509Certificate(made.client_cert).subject).toContain(made.id);
  // The pooled material is this builder's: its listener's certificate is signed by the CA in its details.
  const [hostname, port] = pooled.host.replace(/^tcp:\/\//, '').split(':');
  const authorized = await new Promise<boolean>((resolve, reject) => {
    const socket = connect({
      host: hostname,
      port: Number(port),
      ca: pooled.ca,
      cert: pooled.client_cert,
      key: pooled.client_key,
      ALPNProtocols: ['h2']
    });
    socket.once('secureConnect', () => {
      resolve(socket.authorized);
      socket.destroy();
    });
    socket.once('error', reject);
  });
  expect(authorized).toBe(true);
});
