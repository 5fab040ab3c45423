// Bundles every action hook with ncc: packages/<action>/src/<hook>.ts -> dist/<action>/<hook>/index.js, with
// licenses.txt and modules.json beside it (scripts/bundle-licenses.mjs, from ncc's webpack stats).
// Each bundle is built in a scratch folder and moved into place, so a concurrent run never sees a half-built dist/.
// Usage: node scripts/bundle.mjs [--out DIR] [action...]   (DIR defaults to dist; no action: every one in actions/)
import {spawn} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync} from 'node:fs';
import {availableParallelism} from 'node:os';
import {join, resolve} from 'node:path';
import {writeBundleLicenses} from './bundle-licenses.mjs';

const hooks = ['main', 'post'];
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const dist = outAt === -1 ? 'dist' : args.splice(outAt, 2)[1];
if (!dist) throw new Error('bundle: --out needs a folder, e.g. --out /tmp/bundle-check');
const only = args;
const actions = readdirSync('actions', {withFileTypes: true})
  .filter(d => d.isDirectory() && (only.length === 0 || only.includes(d.name)))
  .map(d => d.name)
  .sort();
const ncc = join('node_modules', '.bin', 'ncc');
mkdirSync(dist, {recursive: true});

// Two ncc builds at a time (BUNDLE_JOBS): each is one busy process, and CI runs lint and typecheck beside this.
const jobs = Math.max(1, Number(process.env.BUNDLE_JOBS) || Math.min(2, availableParallelism()));
const queue = actions.flatMap(action => hooks.map(hook => ({action, hook})));
await Promise.all(
  Array.from({length: Math.min(jobs, queue.length)}, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await bundleHook(next.action, next.hook);
  })
);

async function bundleHook(action, hook) {
  const entry = join('packages', action, 'src', `${hook}.ts`);
  if (!existsSync(entry)) throw new Error(`bundle: ${entry} is missing for actions/${action}`);
  const scratch = mkdtempSync(join(dist, `.${action}-${hook}-`));
  const stats = resolve(`${scratch}.stats.json`);
  try {
    await run(ncc, [
      'build',
      entry,
      '-o',
      scratch,
      '--minify',
      '--no-source-map-register',
      '--stats-out',
      stats,
      '--quiet'
    ]);
    writeBundleLicenses(JSON.parse(readFileSync(stats, 'utf8')), scratch, process.cwd());
    const out = join(dist, action, hook);
    mkdirSync(join(dist, action), {recursive: true});
    const old = `${scratch}.old`;
    if (existsSync(out)) renameSync(out, old);
    renameSync(scratch, out);
    rmSync(old, {recursive: true, force: true});
  } finally {
    rmSync(scratch, {recursive: true, force: true});
    rmSync(stats, {force: true});
  }
}

/** Runs a command with this process's output; rejects, naming it, when it fails. */
function run(cmd, argv) {
  return new Promise((done, fail) => {
    const child = spawn(cmd, argv, {stdio: 'inherit'});
    child.once('error', fail);
    child.once('close', (code, signal) =>
      code === 0
        ? done()
        : fail(new Error(`bundle: ${cmd} ${argv.slice(0, 2).join(' ')} failed (${signal ?? `exit ${code}`})`))
    );
  });
}
