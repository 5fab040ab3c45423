// Shared helpers of the end-to-end tests: the environment scripts/e2e-up.sh set up (a real dockerd with
// BuildKit, a registry on 127.0.0.1:5000, busybox for amd64 and arm64), temporary DOCKER_CONFIG folders,
// docker commands, registry reads, build contexts, the emulator and the bundled actions.
//
// Every helper runs commands asynchronously: the emulator's builders proxy TLS in this same process, so a
// synchronous child process (execFileSync) would block the proxy and hang the build.
import {spawn} from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs';
import http from 'node:http';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {gunzipSync} from 'node:zlib';
import {randomBytes} from 'node:crypto';
import {
  Emulator,
  formatLedger,
  formatRunReport,
  runAction,
  type ActionRunOpts,
  type ActionRunResult,
  type EmulatorOpts,
  type JobRunOpts,
  type ProfileConfig
} from '../src/index.js';
import {versionAtLeast} from '@remote-builder-actions/core';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Where scripts/e2e-up.sh keeps its state (E2E_STATE_DIR overrides, as in the scripts). */
export const STATE_DIR = process.env['E2E_STATE_DIR'] ?? join(REPO_ROOT, '.e2e');

export type Arch = 'amd64' | 'arm64';
export const ARCHES: readonly Arch[] = ['amd64', 'arm64'];

/** `.e2e/env.json`, written by scripts/e2e-up.sh once everything answered: what it measured. */
export interface E2eState {
  /** The toolchain set (E2E_SET of e2e-up): 'oldest', 'newest', or 'system' (the runner's own engine). */
  set: 'oldest' | 'newest' | 'system';
  /** 'own': e2e-up started dockerd; 'system': it found a running Docker engine. */
  mode: 'own' | 'system';
  dockerSocket: string;
  /** The engine's version (server), e.g. '26.1.5+dfsg1'. */
  dockerVersion: string;
  dockerClientVersion: string;
  containerdVersion: string;
  /** The image store of the engine on dockerSocket (the builders' BuildKit): always containerd. */
  imageStore: 'containerd';
  /** As the plugin reports it, e.g. '0.13.1+ds1' (Debian's builds carry +ds1). */
  buildxVersion: string;
  /** Path of the buildx CLI plugin docker runs. */
  buildxPlugin: string;
  /** A second engine on the classic image store (overlay2, as GitHub's ubuntu-latest), for `load`. */
  classicEngine: {dockerSocket: string; dockerVersion: string; imageStore: 'classic'; storageDriver: string};
  /**
   * A third engine (containerd image store) whose BuildKit serves the emulator's arm64 builders, so that each
   * node of a two-node builder has its own BuildKit, as each builder of the service has its own VM.
   */
  arm64Engine: {dockerSocket: string; dockerVersion: string; imageStore: 'containerd'};
  /** A buildx of the other version (Debian's package, unpacked), for `buildx-version`. */
  otherBuildx: {version: string; reports: string; binary: string; suite: string};
  /** host:port of the plain-HTTP registry, e.g. 127.0.0.1:5000. */
  registry: string;
  busybox: Record<Arch, string>;
  /** binfmt_misc entry that runs the other architecture. */
  qemu: string;
  setupSeconds: number;
  writtenAt: string;
}

/** The environment is not up: the suite must fail, not pass quietly. */
export class E2eEnvNotReady extends Error {
  constructor(reason: string) {
    super(
      `The end-to-end environment is not up: ${reason}.\n` +
        `Start it with \`sudo bash scripts/e2e-up.sh\` (stop it with \`sudo bash scripts/e2e-down.sh\`).`
    );
    this.name = 'E2eEnvNotReady';
  }
}

/** Reads `.e2e/env.json` and checks that dockerd, buildx, the registry and busybox all answer; throws E2eEnvNotReady. */
export async function requireE2eEnv(): Promise<E2eEnv> {
  const file = join(STATE_DIR, 'env.json');
  if (!existsSync(file)) throw new E2eEnvNotReady(`${file} does not exist`);
  let state: E2eState;
  try {
    state = JSON.parse(readFileSync(file, 'utf8')) as E2eState;
  } catch (e) {
    throw new E2eEnvNotReady(`${file} is not JSON (${(e as Error).message})`);
  }
  const ping = await unixGet(state.dockerSocket, '/_ping').catch((e: Error) => ({status: 0, body: e.message}));
  if (ping.status !== 200) throw new E2eEnvNotReady(`dockerd does not answer on ${state.dockerSocket} (${ping.body})`);
  const registry = await fetch(`http://${state.registry}/v2/`).catch((e: Error) => e);
  if (registry instanceof Error || registry.status !== 200) {
    const why = registry instanceof Error ? registry.message : `HTTP ${registry.status}`;
    throw new E2eEnvNotReady(`the registry does not answer on ${state.registry} (${why})`);
  }
  for (const arch of ARCHES) {
    if (!existsSync(state.busybox[arch])) throw new E2eEnvNotReady(`no ${arch} busybox at ${state.busybox[arch]}`);
  }
  const buildx = await run('docker', ['buildx', 'version']);
  if (buildx.code !== 0) throw new E2eEnvNotReady(`\`docker buildx version\` fails: ${buildx.stderr.trim()}`);
  if (!state.classicEngine || !state.arm64Engine || !state.otherBuildx) {
    throw new E2eEnvNotReady(`${file} has no classicEngine, arm64Engine or otherBuildx (written by an older e2e-up)`);
  }
  for (const [title, socket] of [
    ['classic-store', state.classicEngine.dockerSocket],
    ['arm64-builder', state.arm64Engine.dockerSocket]
  ] as const) {
    const enginePing = await unixGet(socket, '/_ping').catch((e: Error) => ({status: 0, body: e.message}));
    if (enginePing.status !== 200) {
      throw new E2eEnvNotReady(`the ${title} dockerd does not answer on ${socket} (${enginePing.body})`);
    }
  }
  if (!existsSync(state.otherBuildx.binary)) {
    throw new E2eEnvNotReady(`no buildx ${state.otherBuildx.version} at ${state.otherBuildx.binary}`);
  }
  return new E2eEnv(state);
}

/** E2eEnv is the checked environment: its registry, busybox binaries and state. */
export class E2eEnv {
  readonly registry: Registry;

  constructor(readonly state: E2eState) {
    this.registry = new Registry(state.registry);
  }

  busybox(arch: Arch): string {
    return this.state.busybox[arch];
  }

  /** Whether the measured buildx (the runner's plugin) is `min` or newer. */
  buildxAtLeast(min: string): boolean {
    return versionAtLeast(this.state.buildxVersion, min);
  }

  /** Variables that point a step's docker commands at the classic-store engine. */
  classicDockerEnv(): Record<string, string> {
    return {DOCKER_HOST: `unix://${this.state.classicEngine.dockerSocket}`};
  }

  /** A new temporary folder with its own DOCKER_CONFIG; remove it with Workspace.cleanup(). */
  workspace(label: string): Workspace {
    return new Workspace(this, mkdtempSync(join(tmpdir(), `rba-e2e-${label}-`)));
  }

  /**
   * Starts an emulator whose builders proxy to this dockerd's BuildKit, arm64 builders to the arm64 engine's:
   * the two nodes of a multi-arch builder have a BuildKit each, as on the service (buildx ≥ 0.16 gives all
   * nodes of a build one build ref, docker/buildx 6fc19c402, which collides on a shared BuildKit). See E2eEmulator.
   */
  startEmulator(opts: {
    profiles: ProfileConfig[];
    apiKey?: string;
    idleTimeoutMs?: number;
    builderIds?: EmulatorOpts['builderIds'];
  }): Promise<E2eEmulator> {
    return E2eEmulator.start({
      ...opts,
      dockerSocket: this.state.dockerSocket,
      dockerSocketByArch: {arm64: this.state.arm64Engine.dockerSocket}
    });
  }
}

/**
 * Workspace is one temporary folder: a DOCKER_CONFIG (so builders never land in ~/.docker), job folders for
 * the harness and build contexts.
 */
export class Workspace {
  readonly dockerConfig: string;

  constructor(
    readonly env: E2eEnv,
    readonly dir: string
  ) {
    this.dockerConfig = join(dir, 'docker-config');
    mkdirSync(this.dockerConfig, {recursive: true});
  }

  /** Variables for a step or a docker command that uses this workspace's DOCKER_CONFIG. */
  dockerEnv(): Record<string, string> {
    return {DOCKER_CONFIG: this.dockerConfig};
  }

  /** A new empty folder for one job's harness run (RUNNER_TEMP and GITHUB_WORKSPACE go under it). */
  jobDir(name: string): string {
    const dir = join(this.dir, 'jobs', name);
    mkdirSync(dir, {recursive: true});
    return dir;
  }

  /** `docker ARGS` with this DOCKER_CONFIG. */
  docker(args: string[], opts: RunOpts = {}): Promise<RunResult> {
    return run('docker', args, {...opts, env: {...this.dockerEnv(), ...opts.env}});
  }

  /** `docker ARGS` that must succeed; throws with its output otherwise. */
  async dockerOk(args: string[], opts: RunOpts = {}): Promise<RunResult> {
    const res = await this.docker(args, opts);
    if (res.code !== 0) throw new Error(`docker ${args.join(' ')} failed (${describeExit(res)}):\n${res.output}`);
    return res;
  }

  /** Names of the buildx builders in this DOCKER_CONFIG. */
  buildxBuilders(): string[] {
    const dir = join(this.dockerConfig, 'buildx', 'instances');
    return existsSync(dir) ? readdirSync(dir).sort() : [];
  }

  /** Writes a build context (see buildContext) into a new folder of this workspace. */
  context(name: string, opts: BuildContextOpts = {}): BuildContext {
    return buildContext(this.env, join(this.dir, 'contexts', name), opts);
  }

  cleanup(): void {
    rmSync(this.dir, {recursive: true, force: true});
  }
}

// ---------------------------------------------------------------- build contexts

export interface BuildContextOpts {
  /** Shell command run by busybox sh in the image (one RUN step); default writes /built.txt and /arch.txt. */
  run?: string;
  /** More Dockerfile lines after the RUN step. */
  extraLines?: string[];
  /** Extra files of the context, by relative path. */
  files?: Record<string, string>;
  /** Dockerfile name; default 'Dockerfile'. */
  dockerfile?: string;
}

export interface BuildContext {
  dir: string;
  dockerfile: string;
  /** The Dockerfile's text. */
  text: string;
}

/** The default RUN: records that it ran and on which machine (uname -m: x86_64 or aarch64). */
export const DEFAULT_RUN = 'echo built > /built.txt && uname -m > /arch.txt';

/**
 * A Dockerfile that needs no outside registry and no `# syntax=` line: FROM scratch, the busybox of the
 * target architecture as /busybox, then `RUN ["/busybox","sh","-c","<install the applets in /bin> && run"]`
 * (so /bin/sh exists afterwards and shell-form RUN lines in `extraLines` work too).
 */
export function busyboxDockerfile(opts: Pick<BuildContextOpts, 'run' | 'extraLines'> = {}): string {
  const script = `/busybox mkdir -p /bin && /busybox --install -s /bin && ${opts.run ?? DEFAULT_RUN}`;
  return [
    'FROM scratch',
    'ARG TARGETARCH',
    'COPY busybox-${TARGETARCH} /busybox',
    `RUN ${JSON.stringify(['/busybox', 'sh', '-c', script])}`,
    ...(opts.extraLines ?? []),
    ''
  ].join('\n');
}

/** Writes `busyboxDockerfile(opts)`, both busybox binaries (busybox-amd64, busybox-arm64) and `files` to `dir`. */
export function buildContext(env: E2eEnv, dir: string, opts: BuildContextOpts = {}): BuildContext {
  mkdirSync(dir, {recursive: true});
  for (const arch of ARCHES) copyFileSync(env.busybox(arch), join(dir, `busybox-${arch}`));
  for (const [name, content] of Object.entries(opts.files ?? {})) {
    mkdirSync(dirname(join(dir, name)), {recursive: true});
    writeFileSync(join(dir, name), content);
  }
  const text = busyboxDockerfile(opts);
  const dockerfile = join(dir, opts.dockerfile ?? 'Dockerfile');
  writeFileSync(dockerfile, text);
  return {dir, dockerfile, text};
}

// ---------------------------------------------------------------- registry

export const MANIFEST_ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json'
].join(', ');

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: {os: string; architecture: string; variant?: string};
  annotations?: Record<string, string>;
}

export interface Manifest {
  /** Docker-Content-Digest of the manifest (or index). */
  digest: string;
  mediaType: string;
  /** Index or manifest list: its entries. */
  manifests?: Descriptor[];
  /** Image manifest: config and layers. */
  config?: Descriptor;
  layers?: Descriptor[];
  raw: string;
}

/** Registry reads the local plain-HTTP registry (distribution v2 API). */
export class Registry {
  constructor(readonly address: string) {}

  get url(): string {
    return `http://${this.address}`;
  }

  /** A repository name no other test run uses: `e2e/<prefix>-<random>`. */
  uniqueRepo(prefix: string): string {
    return `e2e/${prefix}-${randomBytes(4).toString('hex')}`;
  }

  /** `127.0.0.1:5000/<repo>:<tag>` */
  ref(repo: string, tag: string): string {
    return `${this.address}/${repo}:${tag}`;
  }

  /** GET /v2/<repo>/manifests/<reference>; undefined on 404. */
  async manifest(repo: string, reference: string): Promise<Manifest | undefined> {
    const res = await fetch(`${this.url}/v2/${repo}/manifests/${reference}`, {headers: {Accept: MANIFEST_ACCEPT}});
    if (res.status === 404) return undefined;
    const raw = await res.text();
    if (res.status !== 200) throw new Error(`GET manifest ${repo}:${reference}: HTTP ${res.status} ${raw}`);
    const body = JSON.parse(raw) as Omit<Manifest, 'digest' | 'raw'>;
    return {
      ...body,
      mediaType: body.mediaType ?? res.headers.get('content-type') ?? '',
      digest: res.headers.get('docker-content-digest') ?? '',
      raw
    };
  }

  /** Like manifest(), but throws when it does not exist. */
  async requireManifest(repo: string, reference: string): Promise<Manifest> {
    const m = await this.manifest(repo, reference);
    if (!m) throw new Error(`${this.ref(repo, reference)} is not in the registry`);
    return m;
  }

  /** The platforms (`os/arch[/variant]`) of an index, without attestation entries; one entry for a single image. */
  async platforms(repo: string, reference: string): Promise<string[]> {
    const m = await this.requireManifest(repo, reference);
    if (!m.manifests) {
      const config = await this.imageConfig(repo, reference);
      return [platformOf(config)];
    }
    return m.manifests
      .filter(d => d.platform && d.platform.os !== 'unknown')
      .map(d => platformOf(d.platform as {os: string; architecture: string; variant?: string}))
      .sort();
  }

  /** The image manifest for `platform` (e.g. 'linux/arm64'); a single-image reference is returned as is. */
  async imageManifest(repo: string, reference: string, platform?: string): Promise<Manifest> {
    const m = await this.requireManifest(repo, reference);
    if (!m.manifests) return m;
    const entries = m.manifests.filter(d => d.platform && d.platform.os !== 'unknown');
    const entry = platform ? entries.find(d => platformOf(d.platform!) === platform) : entries[0];
    if (!entry) throw new Error(`${this.ref(repo, reference)} has no ${platform ?? 'image'} manifest`);
    return this.requireManifest(repo, entry.digest);
  }

  async blob(repo: string, digest: string): Promise<Buffer> {
    const res = await fetch(`${this.url}/v2/${repo}/blobs/${digest}`);
    if (res.status !== 200) throw new Error(`GET blob ${repo}@${digest}: HTTP ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }

  /** The image configuration (architecture, os, config.Labels, history, ...). */
  async imageConfig(repo: string, reference: string, platform?: string): Promise<ImageConfig> {
    const m = await this.imageManifest(repo, reference, platform);
    if (!m.config) throw new Error(`${this.ref(repo, reference)} has no config`);
    return JSON.parse((await this.blob(repo, m.config.digest)).toString('utf8')) as ImageConfig;
  }

  /**
   * Every blob `reference` leads to: the manifest (or index) itself, each manifest of an index (attestation
   * manifests included), their configs and their layers (gzip layers uncompressed). For scanning an image
   * for content that must not be in it, such as a build secret.
   */
  async reachableBlobs(repo: string, reference: string): Promise<ReachableBlob[]> {
    const out: ReachableBlob[] = [];
    const seen = new Set<string>();
    const visit = async (ref: string, what: string): Promise<void> => {
      const m = await this.requireManifest(repo, ref);
      if (seen.has(m.digest)) return;
      seen.add(m.digest);
      out.push({what, digest: m.digest, data: Buffer.from(m.raw, 'utf8')});
      for (const d of m.manifests ?? []) {
        const platform = d.platform ? platformOf(d.platform) : 'no platform';
        await visit(d.digest, `manifest ${platform} of ${what}`);
      }
      const blobs = [
        ...(m.config ? [{d: m.config, kind: 'config'}] : []),
        ...(m.layers ?? []).map((d, i) => ({d, kind: `layer ${i}`}))
      ];
      for (const {d, kind} of blobs) {
        if (seen.has(d.digest)) continue;
        seen.add(d.digest);
        let data = await this.blob(repo, d.digest);
        if (data[0] === 0x1f && data[1] === 0x8b) data = gunzipSync(data);
        out.push({what: `${kind} of ${what}`, digest: d.digest, data});
      }
    };
    await visit(reference, this.ref(repo, reference));
    return out;
  }

  /** A file's content from the image's layers (topmost layer first); undefined when absent. */
  async readFile(repo: string, reference: string, path: string, platform?: string): Promise<string | undefined> {
    const m = await this.imageManifest(repo, reference, platform);
    const wanted = path.replace(/^\/+/, '');
    for (const layer of [...(m.layers ?? [])].reverse()) {
      let data = await this.blob(repo, layer.digest);
      if (data[0] === 0x1f && data[1] === 0x8b) data = gunzipSync(data);
      const found = tarEntry(data, wanted);
      if (found !== undefined) return found.toString('utf8');
    }
    return undefined;
  }
}

/** One blob found by Registry.reachableBlobs: what it is, its digest and its (uncompressed) bytes. */
export interface ReachableBlob {
  what: string;
  digest: string;
  data: Buffer;
}

export interface ImageConfig {
  architecture: string;
  os: string;
  variant?: string;
  config?: {Labels?: Record<string, string>; Env?: string[]; Cmd?: string[]};
  history?: {created_by?: string}[];
}

function platformOf(p: {os: string; architecture: string; variant?: string}): string {
  return [p.os, p.architecture, p.variant].filter(Boolean).join('/');
}

/** The content of a regular file in an uncompressed tar (ustar, with pax path records), or undefined. */
export function tarEntry(tar: Buffer, path: string): Buffer | undefined {
  let offset = 0;
  let paxPath: string | undefined;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every(b => b === 0)) break;
    const field = (start: number, len: number): string =>
      header
        .subarray(start, start + len)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const prefix = field(345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    const body = tar.subarray(offset + 512, offset + 512 + size);
    paxPath = undefined;
    if (type === 'x') {
      const m = /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      paxPath = m?.[1];
    } else if ((type === '0' || type === '\0') && name.replace(/^\.\//, '') === path) {
      return Buffer.from(body);
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

// ---------------------------------------------------------------- processes

export interface RunOpts {
  /** Added to this process's environment. */
  env?: Record<string, string>;
  cwd?: string;
  /** SIGKILL after this long; default 5 minutes. */
  timeoutMs?: number;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout then stderr, for error messages. */
  output: string;
  durationMs: number;
}

/** Runs a command asynchronously (never blocks the in-process emulator) and collects its output. */
export function run(command: string, args: string[], opts: RunOpts = {}): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: {...process.env, ...opts.env},
      stdio: ['ignore', 'pipe', 'pipe']
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 300_000);
    child.once('error', e => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      resolvePromise({code, signal, stdout, stderr, output: stdout + stderr, durationMs: Date.now() - started});
    });
  });
}

function describeExit(res: RunResult): string {
  return res.signal ? `killed by ${res.signal}` : `exit ${res.code}`;
}

/** GET over a unix socket (dockerd's API). */
function unixGet(socketPath: string, path: string): Promise<{status: number; body: string}> {
  return new Promise((resolvePromise, reject) => {
    const req = http.get({socketPath, path, headers: {Host: 'docker'}, timeout: 5000}, res => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolvePromise({status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8')}));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

// ---------------------------------------------------------------- emulator and actions

/** E2eEmulator is an Emulator over the real dockerd, with the log lines it printed. */
export class E2eEmulator {
  private constructor(
    readonly emu: Emulator,
    readonly apiKey: string,
    /** Lines the emulator logged: API requests, idle time-outs, backend errors. */
    readonly log: string[]
  ) {}

  static async start(opts: {
    profiles: ProfileConfig[];
    dockerSocket: string;
    dockerSocketByArch?: EmulatorOpts['dockerSocketByArch'];
    apiKey?: string;
    idleTimeoutMs?: number;
    builderIds?: EmulatorOpts['builderIds'];
  }): Promise<E2eEmulator> {
    const apiKey = opts.apiKey ?? `rb_e2e_${randomBytes(8).toString('hex')}`;
    const log: string[] = [];
    const emu = await Emulator.start({
      profiles: opts.profiles,
      apiKeys: [{key: apiKey, scopes: ['builders']}],
      dockerSocket: opts.dockerSocket,
      dockerSocketByArch: opts.dockerSocketByArch,
      idleTimeoutMs: opts.idleTimeoutMs ?? 0,
      builderIds: opts.builderIds,
      log: line => log.push(line)
    });
    return new E2eEmulator(emu, apiKey, log);
  }

  get url(): string {
    return this.emu.url;
  }

  /** GitHub's artifact service of this emulator: `runnerEnv()` for an action step, `artifacts()` what was uploaded. */
  get artifacts(): Emulator['artifacts'] {
    return this.emu.artifacts;
  }

  /** The inputs every action needs to reach this emulator, plus `inputs`. */
  inputs(inputs: Record<string, string>): Record<string, string> {
    return {'api-url': this.emu.url, 'api-key': this.apiKey, ...inputs};
  }

  /** Ledger entries of these builders (all when omitted). */
  entries(ids?: string[]) {
    const all = this.emu.ledger();
    return ids ? all.filter(e => ids.includes(e.builderId)) : all;
  }

  /** Ids among `ids` (all when omitted) still assigned (billed). */
  stillAssigned(ids?: string[]): string[] {
    return this.entries(ids)
      .filter(e => e.terminatedAt === undefined)
      .map(e => e.builderId);
  }

  /**
   * How each of `ids` stopped being billed: its termination reason ('teardown', 'idle-timeout', …),
   * 'still assigned', or 'not in the ledger'. Compare with `allTornDown(ids)`.
   */
  reasons(ids: string[]): Record<string, string> {
    const entries = this.entries(ids);
    return Object.fromEntries(
      ids.map(id => {
        const e = entries.find(x => x.builderId === id);
        if (!e) return [id, 'not in the ledger'];
        return [id, e.terminatedAt === undefined ? 'still assigned' : (e.reason ?? 'terminated without a reason')];
      })
    );
  }

  /** The ledger as the emulator's CLI prints it, and the backend errors if any. */
  ledgerText(ids?: string[]): string {
    const entries = this.entries(ids);
    const total = entries.reduce((sum, e) => sum + e.cost, 0);
    const errors = this.log.filter(l => !/^(GET|POST|DELETE|PUT|PATCH) /.test(l));
    return formatLedger(entries, total) + (errors.length > 0 ? `\nEmulator messages:\n  ${errors.join('\n  ')}` : '');
  }

  close(): Promise<void> {
    return this.emu.close();
  }
}

/**
 * `dist/<action>/{main,post}/index.js` (E2E_DIST: another bundle folder, e.g. one `node scripts/bundle.mjs
 * --out <dir>` made of a work tree whose dist/ is not rebuilt yet); throws when not bundled.
 */
export function actionScripts(action: string): {main: string; post: string} {
  const dist = process.env['E2E_DIST'] || join(REPO_ROOT, 'dist');
  const main = join(dist, action, 'main', 'index.js');
  const post = join(dist, action, 'post', 'index.js');
  for (const f of [main, post]) if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run bundle\` first`);
  return {main, post};
}

/**
 * Whether the bundle the tests run (`dist/<action>/main/index.js`) contains `text`: for a behaviour that
 * lands in core before the bundles are rebuilt, the tests expect what that bundle does.
 */
export function bundleIncludes(action: string, text: string): boolean {
  return readFileSync(actionScripts(action).main, 'utf8').includes(text);
}

/** Harness options of one job of `action` against `emulator` in `workspace` (its DOCKER_CONFIG), main and post. */
export function actionJob(opts: {
  action: string;
  emulator: E2eEmulator;
  workspace: Workspace;
  job: string;
  inputs: Record<string, string>;
  env?: Record<string, string>;
  timeoutMs?: number;
}): JobRunOpts {
  const {main, post} = actionScripts(opts.action);
  return {
    main,
    post,
    workDir: opts.workspace.jobDir(opts.job),
    inputs: opts.emulator.inputs(opts.inputs),
    env: {...opts.workspace.dockerEnv(), ...opts.env},
    timeoutMs: opts.timeoutMs ?? 240_000
  };
}

/** A step's report with its logs (secrets masked), for failure messages and the test log. */
export function stepReport(title: string, result: ActionRunResult): string {
  return formatRunReport(result, {title, logs: true});
}

/** Ids of the builders a main step assigned, from its saved state (also when it failed). */
export function assignedIds(main: ActionRunResult): string[] {
  const state = main.state['builder'];
  if (!state) return [];
  return (JSON.parse(state) as {builderIds?: string[]}).builderIds ?? [];
}

/** The certificate folder a main step saved in its state. */
export function certDirOf(main: ActionRunResult): string | undefined {
  const state = main.state['builder'];
  return state ? (JSON.parse(state) as {certDir?: string}).certDir : undefined;
}

/** Runs a job's main step only (a later runPost() finishes the job), e.g. to build between main and post. */
export function runMain(job: JobRunOpts, extra: Partial<ActionRunOpts> = {}): Promise<ActionRunResult> {
  const {main, post: _post, postOpts: _postOpts, onLine, ...shared} = job;
  return runAction({
    ...shared,
    script: main,
    ...(onLine ? {onLine: (line, stream) => onLine(line, stream, 'main')} : {}),
    ...extra
  });
}

/** Runs a job's post step after `main` as the runner does: main's state, GITHUB_ENV and GITHUB_PATH carried over. */
export function runPost(job: JobRunOpts, main: ActionRunResult): Promise<ActionRunResult> {
  return runAction({
    script: job.post,
    workDir: job.workDir,
    inputs: job.inputs,
    inheritEnv: job.inheritEnv,
    timeoutMs: job.postOpts?.timeoutMs ?? job.timeoutMs,
    env: {...job.env, ...main.exportedEnv, ...job.postOpts?.env},
    state: main.state,
    prependPath: main.path
  });
}

/** Throws with the step's whole report unless it succeeded. */
export function mustSucceed(title: string, result: ActionRunResult): ActionRunResult {
  if (result.failed) throw new Error(`${title} failed:\n${stepReport(title, result)}`);
  return result;
}

/** `reasons(ids)` of builders that were all torn down by a teardown request. */
export function allTornDown(ids: string[]): Record<string, string> {
  return Object.fromEntries(ids.map(id => [id, 'teardown']));
}

/** GITHUB_WORKSPACE (and the working directory) of a job's steps; created if missing. */
export function jobWorkspace(job: JobRunOpts): string {
  if (!job.workDir) throw new Error('jobWorkspace: the job has no workDir (use actionJob)');
  const dir = join(job.workDir, 'workspace');
  mkdirSync(dir, {recursive: true});
  return dir;
}

/** What a step printed (stdout then stderr) without the `::add-mask::` lines, which hold the masked values. */
export function printed(result: ActionRunResult): string {
  return `${result.stdout}\n${result.stderr}`
    .split('\n')
    .filter(l => !l.startsWith('::add-mask::'))
    .join('\n');
}

/** The error annotation of a failed step ('' when none). */
export function errorOf(result: ActionRunResult): string {
  return result.annotations.find(a => a.level === 'error')?.message ?? '';
}

/** The `docker buildx …` command lines a build step logged with `[command]` (the build or bake it ran). */
export function loggedBuildxCommands(result: ActionRunResult, sub: 'build' | 'bake'): string[] {
  return result.stdout.split('\n').filter(l => new RegExp(`^\\[command\\]\\S*docker buildx ${sub}\\b`).test(l));
}
