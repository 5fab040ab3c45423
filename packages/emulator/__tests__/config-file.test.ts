import {afterAll, beforeAll, expect, test} from '@jest/globals';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {loadEmulatorConfig, parseEmulatorConfig} from '../src/config-file.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rb-emu-config-'));
});
afterAll(() => rmSync(dir, {recursive: true, force: true}));

test('loads profiles and api keys', async () => {
  const file = join(dir, 'ok.json');
  writeFileSync(
    file,
    JSON.stringify({profiles: [{name: 'a', architectures: ['arm64']}], apiKeys: [{key: 'k', scopes: ['builders']}]})
  );
  expect(await loadEmulatorConfig(file)).toEqual({
    profiles: [{name: 'a', architectures: ['arm64']}],
    apiKeys: [{key: 'k', scopes: ['builders']}]
  });
});

test('reports unreadable and invalid files with the path', async () => {
  const file = join(dir, 'bad.json');
  writeFileSync(file, '{"profiles": [');
  await expect(loadEmulatorConfig(file)).rejects.toThrow(`Failed to parse emulator config ${file}`);
  await expect(loadEmulatorConfig(join(dir, 'missing.json'))).rejects.toThrow(/Failed to read emulator config/);
});

test.each<[number, unknown, RegExp]>([
  [1, [], /expected a JSON object/],
  [2, {}, /"profiles" must be a list/],
  [3, {profiles: ['a']}, /"profiles" must be a list/],
  [4, {profiles: [], apiKeys: 'k'}, /"apiKeys"/]
])('%d: rejects %j', (_n, value, message) => {
  expect(() => parseEmulatorConfig(value)).toThrow(message);
});

// prettier-ignore
test.each<[number, unknown, string]>([
  [1, {profiles: [{name: 'ci', archs: ['arm64']}]}, 'Invalid emulator config f.json, profile "ci": unknown key "archs"; the keys of a profile: name, id, architectures, buildersPerAssignment, size, readyDelayMs, hostFormat, hostName, front, frontIdleMs'],
  [2, {profiles: [{name: 'ci', readyDelay: 500}]}, 'Invalid emulator config f.json, profile "ci": unknown key "readyDelay" (did you mean "readyDelayMs"?); the keys of a profile: name, id, architectures, buildersPerAssignment, size, readyDelayMs, hostFormat, hostName, front, frontIdleMs'],
  [3, {profiles: [{size: '32x64'}, {nmae: 'x'}]}, 'Invalid emulator config f.json, profile 2: unknown key "nmae" (did you mean "name"?); the keys of a profile: name, id, architectures, buildersPerAssignment, size, readyDelayMs, hostFormat, hostName, front, frontIdleMs'],
  [4, {profiles: [], apiKey: []}, 'Invalid emulator config f.json: unknown key "apiKey" (did you mean "apiKeys"?); the keys of the file: profiles, apiKeys'],
  [5, {profiles: [], apiKeys: [{key: 'k', scope: ['builders']}]}, 'Invalid emulator config f.json, API key 1: unknown key "scope" (did you mean "scopes"?); the keys of an API key: key, scopes']
])('%d: refuses an unknown key by name, with the closest one', (_n, value, message) => {
  expect(() => parseEmulatorConfig(value, 'f.json')).toThrow(new Error(message));
});
