import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {basename, dirname, join, relative, sep} from 'node:path';
import {createCertDir, removeCertDir, writeBuilderCerts} from '../../src/certs/cert-store.js';

const pems = {
  ca: '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n',
  cert: '-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----',
  key: '-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n'
};

const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cert-store-test-'));
});
afterEach(async () => {
  await rm(root, {recursive: true, force: true});
});

describe('createCertDir', () => {
  test('creates remote-builder-XXXXXX under the root, mode 0700', async () => {
    const dir = await createCertDir(root);
    expect(dirname(dir)).toBe(root);
    expect(basename(dir)).toMatch(/^remote-builder-[A-Za-z0-9]{6}$/);
    expect(await mode(dir)).toBe(0o700);
  });

  test('two calls give two different folders', async () => {
    expect(await createCertDir(root)).not.toBe(await createCertDir(root));
  });

  test('creates a missing root', async () => {
    const dir = await createCertDir(join(root, 'a', 'b'));
    expect(dirname(dir)).toBe(join(root, 'a', 'b'));
    expect(await mode(dir)).toBe(0o700);
  });

  // prettier-ignore
  test.each<[number, string | undefined]>([
    [1, undefined],
    [2, '']
  ])('[%d] root %o → the OS temp dir', async (_n, r) => {
    const dir = await createCertDir(r);
    try {
      expect(dirname(dir)).toBe(tmpdir());
      expect(await mode(dir)).toBe(0o700);
    } finally {
      await rm(dir, {recursive: true, force: true});
    }
  });
});

describe('writeBuilderCerts', () => {
  test('writes ca.pem, cert.pem, key.pem (0600, newline-terminated) into <certDir>/<id> (0700)', async () => {
    const certDir = await createCertDir(root);
    const paths = writeBuilderCerts(certDir, 'b-123', pems);
    const dir = join(certDir, 'b-123');
    expect(paths).toEqual({cacert: join(dir, 'ca.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem')});
    expect(await mode(dir)).toBe(0o700);
    expect((await readdir(dir)).sort()).toEqual(['ca.pem', 'cert.pem', 'key.pem']);
    for (const p of [paths.cacert, paths.cert, paths.key]) expect(await mode(p)).toBe(0o600);
    expect(await readFile(paths.cacert, 'utf8')).toBe(pems.ca);
    expect(await readFile(paths.cert, 'utf8')).toBe(`${pems.cert}\n`);
    expect(await readFile(paths.key, 'utf8')).toBe(pems.key);
  });

  test('overwrites an existing file and makes it private again', async () => {
    const certDir = await createCertDir(root);
    const first = writeBuilderCerts(certDir, 'b1', pems);
    await writeFile(first.key, 'old', {mode: 0o644});
    const again = writeBuilderCerts(certDir, 'b1', {...pems, key: 'NEW'});
    expect(await readFile(again.key, 'utf8')).toBe('NEW\n');
    expect(await mode(again.key)).toBe(0o600);
  });

  // prettier-ignore
  test.each<[number, string, string]>([
    [1, 'abc-DEF_1.2', 'abc-DEF_1.2'],
    [2, '../evil', '__evil'],
    [3, '..', '_'],
    [4, '.', '_'],
    [5, '.hidden', '_hidden'],
    [6, 'a/b', 'a_b'],
    [7, 'a\\b', 'a_b'],
    [8, '/etc/passwd', '_etc_passwd'],
    [9, 'x y:z', 'x_y_z'],
    [10, '', '_'],
    [11, 'bü', 'b_']
  ])('[%d] builder id %o is stored in the single segment %o', async (_n, id, segment) => {
    const certDir = await createCertDir(root);
    const paths = writeBuilderCerts(certDir, id, pems);
    expect(paths.cacert).toBe(join(certDir, segment, 'ca.pem'));
    expect(relative(certDir, paths.key).split(sep)).toEqual([segment, 'key.pem']);
    expect(await readdir(certDir)).toEqual([segment]);
  });
});

describe('removeCertDir', () => {
  test('removes the folder and everything in it', async () => {
    const certDir = await createCertDir(root);
    writeBuilderCerts(certDir, 'b1', pems);
    await removeCertDir(certDir);
    await expect(stat(certDir)).rejects.toHaveProperty('code', 'ENOENT');
    expect(await readdir(root)).toEqual([]);
  });

  test('a missing folder is fine', async () => {
    await expect(removeCertDir(join(root, 'never-made'))).resolves.toBeUndefined();
  });
});
