import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {BAKE_DEFINITION_FILE, readBakeDefinition, writeBakeDefinition} from '../../src/report/bake-definition-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bake-definition-test-'));
});
afterEach(() => {
  rmSync(dir, {recursive: true, force: true});
});

describe('the bake definition file, from main to post', () => {
  test('written by main (0600), read whole by post', () => {
    writeBakeDefinition(dir, '{"target": {}}');
    expect(statSync(join(dir, BAKE_DEFINITION_FILE)).mode & 0o777).toBe(0o600);
    expect(readBakeDefinition(dir)).toEqual({text: '{"target": {}}', unreadBytes: 0});
  });

  test('read only in part when long, never inside a UTF-8 character', () => {
    writeBakeDefinition(dir, `ab${'é'.repeat(10)}`);
    // 5 bytes: "ab", one "é" and half of the next.
    expect(readBakeDefinition(dir, 5)).toEqual({text: 'abé', unreadBytes: 18});
  });

  test('none: no file, or a link instead of main own file', () => {
    expect(readBakeDefinition(dir)).toBeUndefined();
    const elsewhere = join(dir, 'elsewhere.json');
    writeFileSync(elsewhere, '{"secret": 1}');
    symlinkSync(elsewhere, join(dir, BAKE_DEFINITION_FILE));
    expect(readBakeDefinition(dir)).toBeUndefined();
  });
});
