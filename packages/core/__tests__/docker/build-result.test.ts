import {describe, expect, test} from '@jest/globals';
import {existsSync, mkdtempSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {BuildFiles, formatMetadata, readBuildResult} from '../../src/docker/build-result.js';
import {SecretStore, hasGitAuthTokenSecret, parseSecretKvp, resolveSecretEnv} from '../../src/docker/secrets.js';

describe('BuildFiles and readBuildResult (docker resolveImageID / resolveMetadata / resolveDigest)', () => {
  test('a private folder; outputs read from the iidfile and the metadata file', () => {
    const files = BuildFiles.create(mkdtempSync(join(tmpdir(), 'bf-')));
    expect(statSync(files.dir).mode & 0o777).toBe(0o700);
    expect(files.read()).toEqual({});
    writeFileSync(files.imageIdFile, 'sha256:abc\n');
    writeFileSync(files.metadataFile, JSON.stringify({'containerimage.digest': 'sha256:def', 'image.name': 'a/b'}));
    expect(files.read()).toEqual({
      imageId: 'sha256:abc',
      digest: 'sha256:def',
      metadata: {'containerimage.digest': 'sha256:def', 'image.name': 'a/b'}
    });
    files.remove();
    expect(existsSync(files.dir)).toBe(false);
  });

  test('`null` metadata (e.g. call: check) means no metadata', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bf-'));
    writeFileSync(join(dir, 'm.json'), 'null');
    expect(readBuildResult(join(dir, 'none'), join(dir, 'm.json'))).toEqual({});
  });

  test('malformed metadata names the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bf-'));
    writeFileSync(join(dir, 'm.json'), '{');
    expect(() => readBuildResult(join(dir, 'none'), join(dir, 'm.json'))).toThrow(/m\.json is not JSON/);
  });

  test('the metadata output is indented JSON, as docker sets it', () => {
    expect(formatMetadata({a: 'b'})).toBe('{\n  "a": "b"\n}');
  });
});

describe('secrets', () => {
  test('KEY=VALUE split at the first =', () => {
    expect(parseSecretKvp('A=b=c')).toEqual(['A', 'b=c']);
    expect(() => parseSecretKvp('A=')).toThrow(/"A" has an empty value/);
    expect(() => parseSecretKvp('value-only')).toThrow(/no KEY= part/);
    expect(resolveSecretEnv('ID=ENV_NAME')).toBe('id=ID,env=ENV_NAME');
    expect(hasGitAuthTokenSecret(['FOO=1', 'GIT_AUTH_TOKEN=x'])).toBe(true);
    expect(hasGitAuthTokenSecret(['GIT_AUTH_TOKEN.github.com=x'])).toBe(false);
  });

  test('values go to private 0600 files; secret files are passed by their own path (docker v7)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sec-'));
    const store = new SecretStore({dir});
    const s = store.resolveString('K=v1');
    const src = /src=(.*)$/.exec(s)?.[1] as string;
    expect(readFileSync(src, 'utf8')).toBe('v1');
    expect(statSync(src).mode & 0o777).toBe(0o600);
    writeFileSync(join(dir, 'orig'), 'from file');
    expect(store.resolveFile(`F=${join(dir, 'orig')}`)).toBe(`id=F,src=${join(dir, 'orig')}`);
    expect(() => store.resolveFile('F=/no/such/file')).toThrow(/secret file \/no\/such\/file not found/);
  });
});
