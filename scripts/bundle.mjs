// Bundles every action hook with ncc: packages/<action>/src/<hook>.ts -> dist/<action>/<hook>/index.js.
// Each bundle is built in a scratch folder and moved into place, so a concurrent run never sees a half-built dist/.
import {execFileSync} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync} from 'node:fs';
import {join} from 'node:path';

const hooks = ['main', 'post'];
const only = process.argv.slice(2);
const actions = readdirSync('actions', {withFileTypes: true})
  .filter(d => d.isDirectory() && (only.length === 0 || only.includes(d.name)))
  .map(d => d.name)
  .sort();
const ncc = join('node_modules', '.bin', 'ncc');
mkdirSync('dist', {recursive: true});

for (const action of actions) {
  for (const hook of hooks) {
    const entry = join('packages', action, 'src', `${hook}.ts`);
    if (!existsSync(entry)) throw new Error(`bundle: ${entry} is missing for actions/${action}`);
    const scratch = mkdtempSync(join('dist', `.${action}-${hook}-`));
    try {
      execFileSync(
        ncc,
        ['build', entry, '-o', scratch, '--minify', '--no-source-map-register', '--license', 'licenses.txt', '--quiet'],
        {
          stdio: 'inherit'
        }
      );
      const out = join('dist', action, hook);
      mkdirSync(join('dist', action), {recursive: true});
      const old = `${scratch}.old`;
      if (existsSync(out)) renameSync(out, old);
      renameSync(scratch, out);
      rmSync(old, {recursive: true, force: true});
    } finally {
      rmSync(scratch, {recursive: true, force: true});
    }
  }
}
