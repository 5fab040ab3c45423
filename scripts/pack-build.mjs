// Builds what a workspace ships, before `npm pack` (its prepack script): `node ../../scripts/pack-build.mjs <pkg>`;
// `--clean <pkg>` removes it again afterwards (postpack), so the sources stay the only thing in the tree.
//   core:     tsc -> packages/core/lib/ (ESM JavaScript + .d.ts), from packages/core/tsconfig.build.json
//   cli:      ncc -> packages/cli/bundle/index.js (src/main.ts with core and every dependency inlined)
//   emulator: ncc -> packages/emulator/bundle/index.js (src/cli.ts, likewise)
//   each bundle with licenses.txt and modules.json (scripts/bundle-licenses.mjs); each package with the root LICENSE
// In the repository nothing needs these: every tool reads the TypeScript sources (tsconfig.json paths).
import {execFileSync} from 'node:child_process';
import {copyFileSync, readFileSync, rmSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {writeBundleLicenses} from './bundle-licenses.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const builds = {
  core: {out: 'lib', run: pkg => tool('tsc', ['-p', join(pkg, 'tsconfig.build.json')])},
  cli: {out: 'bundle', run: pkg => ncc(join(pkg, 'src', 'main.ts'), join(pkg, 'bundle'))},
  emulator: {out: 'bundle', run: pkg => ncc(join(pkg, 'src', 'cli.ts'), join(pkg, 'bundle'))}
};

const args = process.argv.slice(2);
const clean = args[0] === '--clean';
const name = clean ? args[1] : args[0];
const build = builds[name];
if (build === undefined) {
  console.error(`pack-build: unknown package ${JSON.stringify(name)}; one of ${Object.keys(builds).join(', ')}`);
  process.exit(2);
}
const pkg = join(root, 'packages', name);
rmSync(join(pkg, build.out), {recursive: true, force: true});
// npm pack takes LICENSE from the package folder only: a copy of the root's, for the time of the pack.
rmSync(join(pkg, 'LICENSE'), {force: true});
if (!clean) {
  copyFileSync(join(root, 'LICENSE'), join(pkg, 'LICENSE'));
  build.run(pkg);
}

function tool(bin, argv) {
  // Their output goes to stderr: npm pack prints the tarball names on stdout.
  execFileSync(join(root, 'node_modules', '.bin', bin), argv, {cwd: root, stdio: ['ignore', 2, 2]});
}

function ncc(entry, out) {
  const stats = `${out}.stats.json`;
  try {
    tool('ncc', ['build', entry, '-o', out, '--stats-out', stats, '--quiet', '--no-source-map-register']);
    writeBundleLicenses(JSON.parse(readFileSync(stats, 'utf8')), out, root);
  } finally {
    rmSync(stats, {force: true});
  }
}
