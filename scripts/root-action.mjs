#!/usr/bin/env node
// Writes the repository's root action.yml from actions/build-push/action.yml: the Marketplace lists only a
// repository's root action, so the root is the build-push action (the drop-in most users look for), as
// actions/cache's root is its cache action beside its sub-actions. Same inputs, outputs and bundles; only
// the name (the Marketplace's listing) and the bundles' paths differ.
// Usage: node scripts/root-action.mjs [--check]   (--check: exit 1 when action.yml is not current)
import {readFileSync, writeFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

const ROOT = new URL('../', import.meta.url);
export const ROOT_ACTION_NAME = 'Remote Builder Build and Push';

/** The root action.yml's text, made from build-push's. */
export function rootActionText(buildPush) {
  const lines = buildPush.split('\n');
  if (!/^name: /.test(lines[0] ?? '')) throw new Error('actions/build-push/action.yml does not start with name:');
  lines[0] = `name: '${ROOT_ACTION_NAME}'`;
  const text = lines.join('\n').replace(/'\.\.\/\.\.\/dist\//g, "'dist/");
  if (!/main: 'dist\/build-push\/main\/index\.js'/.test(text))
    throw new Error("actions/build-push/action.yml's runs.main is not '../../dist/build-push/main/index.js'");
  return (
    '# Generated from actions/build-push/action.yml by scripts/root-action.mjs (npm run root-action): edit that\n' +
    '# file, then run it. `uses: <owner>/remote-builder-actions@v1` is the same action as\n' +
    '# `uses: <owner>/remote-builder-actions/actions/build-push@v1`.\n' +
    text
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const want = rootActionText(readFileSync(new URL('actions/build-push/action.yml', ROOT), 'utf8'));
  const file = new URL('action.yml', ROOT);
  if (process.argv[2] === '--check') {
    let have = '';
    try {
      have = readFileSync(file, 'utf8');
    } catch {
      // missing: not current
    }
    if (have !== want) {
      process.stderr.write('action.yml is not current: run npm run root-action and commit it\n');
      process.exit(1);
    }
  } else {
    writeFileSync(file, want);
  }
}
