// Our runner protocol claims to write what @actions/core writes, byte for byte: compared here with
// @actions/core itself (a dependency of @actions/artifact, so it is in node_modules), not with strings we wrote.
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
// eslint-disable-next-line no-restricted-imports -- the reference these tests compare our protocol with
import * as core from '@actions/core';
import {actionsIO, actionsLogger, getInput} from '../../src/adapters/actions.js';
import type {AnnotationProperties} from '../../src/logger.js';

/** What `fn` writes to stdout. */
async function stdoutOf(fn: () => unknown): Promise<string> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array): boolean => {
    chunks.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    await fn();
  } finally {
    process.stdout.write = write;
  }
  return chunks.join('');
}

// Messages and properties that need escaping: %, CR, LF, and ':' ',' in properties.
const MESSAGES = ['plain', 'a % b', 'two\nlines\r\nhere', 'colon: and, comma', ''];
const PROPERTIES: AnnotationProperties[] = [
  {},
  {title: 'T: a, b', file: 'src/a,b.ts', startLine: 3, endLine: 4, startColumn: 5, endColumn: 6},
  {file: 'Dockerfile', startLine: 0}
];

describe('the runner protocol, against @actions/core 3.0.1 itself', () => {
  test.each(MESSAGES)('debug, info, error, add-mask and a group of %j', async m => {
    const ours = await stdoutOf(async () => {
      actionsLogger.debug(m);
      actionsLogger.info(m);
      actionsLogger.error(m);
      actionsLogger.setSecret(m === '' ? 'x' : m);
      await actionsLogger.group(m, async () => undefined);
    });
    const theirs = await stdoutOf(async () => {
      core.debug(m);
      core.info(m);
      core.error(m);
      core.setSecret(m === '' ? 'x' : m);
      await core.group(m, async () => undefined);
    });
    expect(ours).toBe(theirs);
  });

  test.each(PROPERTIES)('warning with properties %j', async p => {
    for (const m of MESSAGES) {
      const ours = await stdoutOf(() => actionsLogger.warning(m, p));
      const theirs = await stdoutOf(() => core.warning(m, p));
      expect(ours).toBe(theirs);
    }
  });

  describe('file commands', () => {
    let dir: string;
    const saved: Record<string, string | undefined> = {};
    const FILES = ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_ENV'];
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'core-parity-'));
      for (const f of FILES) {
        saved[f] = process.env[f];
        process.env[f] = join(dir, f);
        writeFileSync(join(dir, f), '');
      }
    });
    afterEach(() => {
      for (const f of FILES) {
        if (saved[f] === undefined) delete process.env[f];
        else process.env[f] = saved[f];
      }
      rmSync(dir, {recursive: true, force: true});
    });
    /** The file's text with each heredoc delimiter (a random UUID) made the same. */
    const read = (f: string): string =>
      readFileSync(join(dir, f), 'utf8').replace(/ghadelimiter_[0-9a-f-]{36}/g, 'ghadelimiter_X');
    const clear = (): void => FILES.forEach(f => writeFileSync(join(dir, f), ''));

    test('outputs, state and variables, multi-line values included', () => {
      const io = actionsIO();
      const pairs: [string, string][] = [
        ['digest', 'sha256:abc'],
        ['metadata', '{\n  "a": 1\n}'],
        ['empty', '']
      ];
      const files = (): string[] => FILES.map(read);
      for (const [k, v] of pairs) {
        io.setOutput(k, v);
        io.state.save(k, v);
        io.exportVariable(`RB_PARITY_${k.toUpperCase()}`, v);
      }
      const ours = files();
      clear();
      for (const [k, v] of pairs) {
        core.setOutput(k, v);
        core.saveState(k, v);
        core.exportVariable(`RB_PARITY_${k.toUpperCase()}`, v);
      }
      expect(ours).toEqual(files());
      for (const [k] of pairs) delete process.env[`RB_PARITY_${k.toUpperCase()}`];
    });
  });

  test.each([
    ['profile-name', '  amd  '],
    ['api key', 'k'],
    ['unset', undefined]
  ])('getInput(%j) reads what core.getInput reads', (name, value) => {
    const key = `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
    const env = value === undefined ? {} : {[key]: value};
    const before = process.env[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
    try {
      expect(getInput(name, env)).toBe(core.getInput(name));
    } finally {
      if (before === undefined) delete process.env[key];
      else process.env[key] = before;
    }
  });
});
