// The root action.yml (the Marketplace's listing) is the build-push action: made from
// actions/build-push/action.yml by scripts/root-action.mjs, its bundles resolved from the repository root.
import {existsSync, readFileSync} from 'node:fs';
import {dirname, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {expect, test} from '@jest/globals';
import {parse} from 'yaml';
// @ts-expect-error: a plain ESM script without type declarations
import {rootActionText} from '../../../scripts/root-action.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (p: string): string => readFileSync(resolve(ROOT, p), 'utf8');

interface Manifest {
  name: string;
  description: string;
  inputs: unknown;
  outputs: unknown;
  runs: {using: string; main: string; post: string};
}

test('action.yml is current (npm run root-action)', () => {
  expect(read('action.yml')).toBe((rootActionText as (t: string) => string)(read('actions/build-push/action.yml')));
});

test('the root action has build-push’s inputs and outputs, and its bundles resolve from the root', () => {
  const root = parse(read('action.yml')) as Manifest;
  const buildPush = parse(read('actions/build-push/action.yml')) as Manifest;
  expect(root.inputs).toEqual(buildPush.inputs);
  expect(root.outputs).toEqual(buildPush.outputs);
  expect(root.runs.using).toBe('node24');
  for (const hook of ['main', 'post'] as const) {
    const file = resolve(ROOT, root.runs[hook]);
    expect(file).toBe(resolve(ROOT, 'actions/build-push', buildPush.runs[hook]));
    expect(existsSync(file)).toBe(true);
  }
});

test.each(['action.yml', 'actions/build-push/action.yml', 'actions/bake/action.yml', 'actions/configure/action.yml'])(
  '%s: a Marketplace description (under 125 characters) and branding of our own',
  file => {
    const doc = parse(read(file)) as Manifest & {branding?: {icon: string; color: string}};
    expect(doc.description.length).toBeLessThan(125);
    // docker's actions wear anchor/blue.
    expect(doc.branding).toBeDefined();
    expect([doc.branding?.icon, doc.branding?.color]).not.toEqual(['anchor', 'blue']);
    expect(doc.branding?.color).not.toBe('blue');
  }
);
