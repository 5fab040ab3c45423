// `npm run demo [-- --fake-docker] [-- --debug]`: the configure, build-push and bake actions' jobs against
// the embedded emulator (see demo/demo-run.ts). Exit 0 when every step succeeded and every builder was torn
// down, 1 otherwise.
import {dirname, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {runDemo} from './demo/demo-run.js';
import {exitAfterOutput} from './exit-after-output.js';

const USAGE = 'usage: npm run demo -- [--fake-docker] [--debug]';

async function main(argv: string[]): Promise<number> {
  const unknown = argv.filter(a => a !== '--fake-docker' && a !== '--debug');
  if (unknown.length > 0) {
    console.error(`demo: unknown argument ${unknown.join(' ')}; ${USAGE}`);
    return 2;
  }
  const result = await runDemo({
    root: resolve(dirname(fileURLToPath(import.meta.url)), '../../..'),
    docker: argv.includes('--fake-docker') ? 'fake' : 'auto',
    debug: argv.includes('--debug')
  });
  return result.ok ? 0 : 1;
}

main(process.argv.slice(2)).then(exitAfterOutput, (e: unknown) => {
  console.error(`demo failed: ${e instanceof Error ? e.message : String(e)}`);
  exitAfterOutput(1);
});
