#!/usr/bin/env node
// The remote-builder CLI. Installed from npm it runs bundle/index.js (ncc, built when the package is packed);
// in the repository, where src/ exists, it runs the TypeScript entry through tsx (no build step), with the
// repository's tsconfig.json whose paths map the workspaces to their sources.
import {existsSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

const sources = new URL('../src/main.ts', import.meta.url);
if (existsSync(fileURLToPath(sources))) {
  const {register} = await import('tsx/esm/api');
  register({tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url))});
  await import(sources.href);
} else {
  await import('../bundle/index.js');
}
