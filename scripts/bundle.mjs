// Bundles every action hook with ncc: packages/<action>/src/<hook>.ts -> dist/<action>/<hook>/index.js.
import {execFileSync} from 'node:child_process';
import {existsSync, readdirSync, rmSync} from 'node:fs';
import {join} from 'node:path';

const hooks = ['main', 'post'];
const actions = readdirSync('actions', {withFileTypes: true})
  .filter(d => d.isDirectory())
  .map(d => d.name)
  .sort();
const ncc = join('node_modules', '.bin', 'ncc');

for (const action of actions) {
  for (const hook of hooks) {
    const entry = join('packages', action, 'src', `${hook}.ts`);
    if (!existsSync(entry)) throw new Error(`bundle: ${entry} is missing for actions/${action}`);
    const out = join('dist', action, hook);
    rmSync(out, {recursive: true, force: true});
    execFileSync(
      ncc,
      ['build', entry, '-o', out, '--minify', '--no-source-map-register', '--license', 'licenses.txt', '--quiet'],
      {stdio: 'inherit'}
    );
  }
}
