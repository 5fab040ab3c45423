import {describe, expect, test} from '@jest/globals';
import {readFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {parse} from 'yaml';
import {earlyInput} from '../src/early.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('earlyInput', () => {
  test('reads an input as @actions/core does: INPUT_<NAME> upper-cased, spaces as _, trimmed', () => {
    const env = {'INPUT_SETUP-BUILDX': ' false\n', INPUT_MY_INPUT: 'x'};
    expect([earlyInput('setup-buildx', env), earlyInput('my input', env), earlyInput('buildx-version', env)]).toEqual([
      'false',
      'x',
      ''
    ]);
  });

  // The early modules name inputs by literal (importing the inputs would load the whole core before them).
  test.each(['configure', 'build-push', 'bake'])(
    '%s: every input its early.ts reads is one of its action.yml',
    action => {
      const source = readFileSync(join(root, 'packages', action, 'src', 'early.ts'), 'utf8');
      const read = [...source.matchAll(/earlyInput\('([^']+)'\)/g)].map(m => m[1]);
      expect(read).toContain('buildx-version');
      const manifest = parse(readFileSync(join(root, 'actions', action, 'action.yml'), 'utf8')) as {inputs: object};
      expect(Object.keys(manifest.inputs)).toEqual(expect.arrayContaining(read));
    }
  );
});
