#!/usr/bin/env node
// The remote-builder service emulator (`--help` for its options). Installed from npm it runs
// bundle/index.js (ncc, built when the package is packed); in the repository, where src/ exists, it runs the
// TypeScript sources through tsx (no build step), with the repository's tsconfig.json (workspace paths).
import {existsSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

const sources = new URL('../src/cli.ts', import.meta.url);
let cli;
if (existsSync(fileURLToPath(sources))) {
  const {register} = await import('tsx/esm/api');
  register({tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url))});
  cli = await import(sources.href);
} else {
  cli = await import('../bundle/index.js');
}
cli.runCli(process.argv.slice(2)).then(
  code => process.exit(code),
  error => {
    console.error(error);
    process.exit(1);
  }
);
