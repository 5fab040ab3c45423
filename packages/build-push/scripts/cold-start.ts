// Cold start of a bundled main: time from spawning `node <bundle>` to the emulator receiving its first
// API request (the assignment). Usage: npx tsx packages/build-push/scripts/cold-start.ts [runs] <bundle>...
// Runs alternate between bundles; prints min / median / max per bundle and its size.
import {spawn} from 'node:child_process';
import {mkdtempSync, rmSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator} from '@remote-builder-actions/emulator';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const argv = process.argv.slice(2);
const runs = /^\d+$/.test(argv[0] ?? '') ? Number(argv.shift()) : 12;
const bundles = argv.length > 0 ? argv.map(b => resolve(b)) : [join(root, 'dist/build-push/main/index.js')];
const key = 'rb_cold_start_key_1';
const emu = await Emulator.start({profiles: [{name: 'p'}], apiKeys: [{key, scopes: ['builders']}]});

async function once(bundle: string): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), 'cold-start-'));
  const seen = emu.requests().length;
  const env: Record<string, string> = {
    PATH: `${join(root, 'packages/emulator/fake-docker')}:${process.env.PATH}`,
    HOME: process.env.HOME ?? work,
    RUNNER_TEMP: work,
    GITHUB_REPOSITORY: 'o/r',
    GITHUB_REF: 'refs/heads/main',
    FAKE_DOCKER_DIR: join(work, 'docker'),
    'INPUT_PROFILE-NAME': 'p',
    'INPUT_API-URL': emu.url,
    'INPUT_API-KEY': key,
    INPUT_CONTEXT: '.'
  };
  const started = Date.now();
  const child = spawn(process.execPath, [bundle], {env, cwd: work, stdio: 'ignore'});
  await new Promise(r => child.once('close', r));
  const first = emu.requests().slice(seen)[0];
  rmSync(work, {recursive: true, force: true});
  if (!first) throw new Error(`${bundle} sent no API request`);
  return first.at - started;
}

const times = new Map<string, number[]>(bundles.map(b => [b, []]));
for (let i = 0; i < runs; i++) for (const b of bundles) times.get(b)?.push(await once(b));
for (const [b, t] of times) {
  const sorted = [...t].sort((x, y) => x - y);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(
    `${b}: ${(statSync(b).size / 1024).toFixed(0)} KiB; first API request after min ${sorted[0]} / median ${median} / max ${sorted[sorted.length - 1]} ms (${t.length} runs)`
  );
}
await emu.close();
