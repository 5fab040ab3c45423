// `npm run demo`: the configure action's whole job, main then post, against the embedded emulator.
// With a working dockerd + buildx on this machine, the builders proxy to its BuildKit and a real image
// is built between main and post; otherwise a recording fake docker stands in for the buildx calls.
import {spawn, spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator} from './index.js';
import {runAction, formatRunReport} from './harness/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const dist = join(root, 'dist', 'configure');
const apiKey = 'demo-api-key';

function realDocker(): string | undefined {
  const socket = process.env['DOCKER_HOST']?.replace(/^unix:\/\//, '') ?? '/var/run/docker.sock';
  if (!existsSync(socket)) return undefined;
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {encoding: 'utf8'});
  const buildx = spawnSync('docker', ['buildx', 'version'], {encoding: 'utf8'});
  return info.status === 0 && buildx.status === 0 ? socket : undefined;
}

async function main(): Promise<void> {
  if (!existsSync(join(dist, 'main', 'index.js'))) throw new Error('dist/configure is missing: run `npm run bundle`');
  const dockerSocket = realDocker();
  const work = mkdtempSync(join(tmpdir(), 'remote-builder-demo-'));
  const env: Record<string, string> = {DOCKER_CONFIG: join(work, 'docker-config')};
  if (!dockerSocket) {
    env['PATH'] = `${join(root, 'packages', 'emulator', 'fake-docker')}:${process.env['PATH'] ?? ''}`;
    env['FAKE_DOCKER_DIR'] = join(work, 'fake-docker');
  }
  console.log(
    dockerSocket
      ? `Using the real dockerd at ${dockerSocket} behind the emulator's builders.`
      : 'No dockerd here: buildx calls go to the recording fake docker.'
  );

  const emu = await Emulator.start({
    profiles: [
      {name: 'demo', architectures: ['amd64', 'arm64'], buildersPerAssignment: 2, readyDelayMs: 1500, size: '16x32'}
    ],
    apiKeys: [{key: apiKey, scopes: ['builders']}],
    ...(dockerSocket ? {dockerSocket} : {})
  });
  console.log(`Emulator listening at ${emu.url} (profile "demo": 2 builders, amd64 + arm64, ready after 1.5 s)\n`);
  try {
    // The service does not report a builder's size: the user names the profile's, for the cost in the summary.
    const inputs = {
      'profile-name': 'demo',
      'api-url': emu.url,
      'api-key': apiKey,
      timeout: '60000',
      'builder-size': '16x32'
    };
    const main = await runAction({script: join(dist, 'main', 'index.js'), inputs, env, workDir: work});
    console.log('── configure: main ──');
    console.log(formatRunReport(main, {logs: true}));
    if (main.exitCode === 0 && dockerSocket) await realBuild(main.outputs['name'] ?? '', work, env);
    const post = await runAction({
      script: join(dist, 'post', 'index.js'),
      inputs,
      env,
      workDir: work,
      state: main.state
    });
    console.log('── configure: post ──');
    console.log(formatRunReport(post, {logs: true}));
    printLedger(emu);
    const left = emu.assignedBuilders();
    if (main.exitCode !== 0 || post.exitCode !== 0 || left.length > 0) {
      throw new Error(
        `demo failed: main exit ${main.exitCode}, post exit ${post.exitCode}, ${left.length} builder(s) left assigned`
      );
    }
    console.log('\nNothing left assigned: every builder was torn down.');
  } finally {
    await emu.close();
    rmSync(work, {recursive: true, force: true});
  }
}

/**
 * Builds on the configured builder. Asynchronously: the builders' TLS proxies run in this process, so a
 * synchronous child (execFileSync) would block them and the build would hang. `env` carries the
 * DOCKER_CONFIG the configure step created the builder in.
 */
async function realBuild(builder: string, work: string, env: Record<string, string>): Promise<void> {
  const ctx = join(work, 'context');
  mkdirSync(ctx, {recursive: true});
  writeFileSync(join(ctx, 'hello.txt'), 'built on a remote builder\n');
  writeFileSync(join(ctx, 'Dockerfile'), 'FROM scratch\nCOPY hello.txt /hello.txt\n');
  console.log(`── docker buildx build --builder ${builder} ──`);
  const args = ['buildx', 'build', '--builder', builder, '--output', `type=local,dest=${join(work, 'out')}`, ctx];
  const code = await new Promise<number | null>((resolvePromise, reject) => {
    const child = spawn('docker', args, {stdio: 'inherit', env: {...process.env, ...env}});
    child.once('error', reject);
    child.once('close', resolvePromise);
  });
  if (code !== 0) throw new Error(`docker ${args.join(' ')} failed with exit ${code}`);
  console.log(`Result: ${readFileSync(join(work, 'out', 'hello.txt'), 'utf8').trim()}\n`);
}

function printLedger(emu: Emulator): void {
  console.log('── billing ledger ──');
  const rows = emu.ledger().map(e => ({
    builder: e.builderId,
    arch: e.arch,
    ready: e.readyAt ? `${e.readyAt - e.assignedAt} ms` : '-',
    billed: `${(e.billedMs / 1000).toFixed(1)} s`,
    cost: `$${e.cost.toFixed(4)}`,
    state: e.terminatedAt ? `terminated (${e.reason})` : 'ASSIGNED'
  }));
  console.table(rows);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
