import {afterEach, beforeEach, expect, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {benchDockerCli} from '../../src/bench/peers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bench-docker-'));
});
afterEach(() => rmSync(dir, {recursive: true, force: true}));

/** A `docker` in `sub`: a binary (ELF header) or a script. */
function docker(sub: string, kind: 'binary' | 'script'): string {
  mkdirSync(join(dir, sub), {recursive: true});
  const path = join(dir, sub, 'docker');
  writeFileSync(path, kind === 'binary' ? '\x7fELF' : '#!/bin/sh\n', {mode: 0o755});
  return path;
}

// prettier-ignore
test.each<[string, Array<[string, 'binary' | 'script']>, string | undefined, string | undefined]>([
  ['the first docker on PATH, a binary, as on a runner', [['a', 'binary'], ['b', 'script']], undefined, 'a'],
  ['the first docker on PATH is a script: the fake’s script, not a later binary', [['a', 'script'], ['b', 'binary']], undefined, undefined],
  ['no docker on PATH', [], undefined, undefined],
  ['`fake` forces the fake’s script', [['a', 'binary']], 'fake', undefined]
])('%s', (_what, dockers, setting, expected) => {
  for (const [sub, kind] of dockers) docker(sub, kind);
  const path = ['none', 'a', 'b'].map(d => join(dir, d)).join(':');
  expect(benchDockerCli(setting, path)).toBe(expected && join(dir, expected, 'docker'));
});

test('a path names the CLI, whatever PATH holds', () => {
  expect(benchDockerCli('/opt/docker/bin/docker', '')).toBe('/opt/docker/bin/docker');
});
