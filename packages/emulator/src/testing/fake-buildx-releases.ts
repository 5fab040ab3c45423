// A fake of docker/buildx's GitHub releases for tests, on loopback: per version an executable shell script per
// platform named like the real asset, a checksums.txt, the `releases/latest` redirect, GitHub's redirect of
// asset downloads to another path, and switches for the faults an installer must survive.
import {createHash} from 'node:crypto';
import {chmodSync, mkdirSync, writeFileSync} from 'node:fs';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {join} from 'node:path';

/** A release asset platform as buildx names it: `linux`/`amd64`, `linux`/`arm-v7`, `windows`/`amd64`. */
export interface FakeBuildxPlatform {
  os: string;
  arch: string;
}

/**
 * What goes wrong, for every request it matches (`file`: an asset name, or 'checksums.txt'; default any file):
 * - wrong-checksum: checksums.txt lists a digest that is not the asset's;
 * - missing-checksum: checksums.txt has no line for the asset;
 * - not-found: 404 for the file;
 * - status: that status for the file (or for `releases/latest` with file 'latest');
 * - slow-body: the file's headers and first bytes are sent, then nothing until the server closes.
 */
export type FakeBuildxFault =
  | {kind: 'wrong-checksum'; file?: string}
  | {kind: 'missing-checksum'; file?: string}
  | {kind: 'not-found'; file?: string}
  | {kind: 'status'; status: number; file?: string}
  | {kind: 'slow-body'; file?: string};

export interface FakeBuildxReleasesOpts {
  /** Published versions, no leading v; default ['0.19.3', '0.18.0']. */
  versions?: string[];
  /** Where `releases/latest` points; default the first of `versions`. */
  latest?: string;
  /** Assets per version; default linux and darwin amd64/arm64, linux arm-v7, windows amd64. */
  platforms?: FakeBuildxPlatform[];
}

/** One request the server got, in arrival order. */
export interface FakeBuildxRequest {
  path: string;
  status: number;
}

const DEFAULT_PLATFORMS: FakeBuildxPlatform[] = [
  {os: 'linux', arch: 'amd64'},
  {os: 'linux', arch: 'arm64'},
  {os: 'linux', arch: 'arm-v7'},
  {os: 'darwin', arch: 'amd64'},
  {os: 'darwin', arch: 'arm64'},
  {os: 'windows', arch: 'amd64'}
];

/** FakeBuildxReleases serves `<baseUrl>/releases/…` like https://github.com/docker/buildx. */
export class FakeBuildxReleases {
  /** Pass as the installer's base URL (stands for https://github.com/docker/buildx). */
  readonly baseUrl: string;
  readonly requests: FakeBuildxRequest[] = [];
  readonly versions: readonly string[];
  latest: string;
  fault?: FakeBuildxFault;
  /** Called when a slow-body answer has sent its first bytes (e.g. to abort the client's signal). */
  onSlowBodyStarted?: () => void;

  readonly #server: http.Server;
  readonly #platforms: FakeBuildxPlatform[];

  private constructor(server: http.Server, opts: FakeBuildxReleasesOpts) {
    this.#server = server;
    this.versions = opts.versions ?? ['0.19.3', '0.18.0'];
    this.latest = opts.latest ?? (this.versions[0] as string);
    this.#platforms = opts.platforms ?? DEFAULT_PLATFORMS;
    const {port} = server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}/docker/buildx`;
  }

  static async start(opts: FakeBuildxReleasesOpts = {}): Promise<FakeBuildxReleases> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const fake = new FakeBuildxReleases(server, opts);
    server.on('request', (req, res) => fake.#answer(req, res));
    return fake;
  }

  /** The asset file name of a version for a platform: `buildx-v0.19.3.linux-amd64`. */
  static assetName(version: string, p: FakeBuildxPlatform): string {
    return `buildx-v${version}.${p.os}-${p.arch}${p.os === 'windows' ? '.exe' : ''}`;
  }

  /** The bytes of an asset: a shell script playing buildx (see the header of the script). */
  static assetBody(version: string, p: FakeBuildxPlatform): Buffer {
    const sha = createHash('sha1').update(`${version} ${p.os}-${p.arch}`).digest('hex').slice(0, 7);
    return Buffer.from(
      [
        '#!/bin/sh',
        `# fake buildx v${version} for ${p.os}-${p.arch}: as a docker CLI plugin it is run as "docker-buildx buildx ARGS"`,
        'if [ "$1" = docker-cli-plugin-metadata ]; then',
        `  echo '{"SchemaVersion":"0.1.0","Vendor":"Docker Inc.","Version":"v${version}","ShortDescription":"Docker Buildx"}'`,
        '  exit 0',
        'fi',
        'if [ "$1" = buildx ]; then shift; fi',
        'if [ "$1" = version ]; then',
        `  echo "github.com/docker/buildx v${version} ${sha}"`,
        '  exit 0',
        'fi',
        'if [ -n "$FAKE_BUILDX_DELEGATE" ]; then exec "$FAKE_BUILDX_DELEGATE" buildx "$@"; fi',
        `echo "fake buildx v${version}: unsupported command: $*" >&2`,
        'exit 1',
        ''
      ].join('\n')
    );
  }

  /** The SHA-256 (hex) of an asset, as checksums.txt lists it without faults. */
  static assetSha256(version: string, p: FakeBuildxPlatform): string {
    return createHash('sha256').update(FakeBuildxReleases.assetBody(version, p)).digest('hex');
  }

  /** Requests whose path ends with `suffix` (e.g. an asset name), in order. */
  requestsFor(suffix: string): FakeBuildxRequest[] {
    return this.requests.filter(r => r.path.endsWith(suffix));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>(resolve => this.#server.close(() => resolve()));
  }

  #answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (status: number, body: string | Buffer, headers: Record<string, string> = {}): void => {
      this.requests.push({path, status});
      res.writeHead(status, {'content-length': String(Buffer.byteLength(body)), ...headers});
      res.end(body);
    };
    // Redirects name the host the client asked for (through a proxy: the proxy's name for this server).
    const origin = `http://${req.headers.host ?? new URL(this.baseUrl).host}`;
    const fault = (file: string): FakeBuildxFault | undefined =>
      this.fault && (this.fault.file === undefined || this.fault.file === file) ? this.fault : undefined;

    if (path === '/docker/buildx/releases/latest') {
      const f = fault('latest');
      if (f?.kind === 'status') return send(f.status, 'fault');
      return send(302, '', {location: `${origin}/docker/buildx/releases/tag/v${this.latest}`});
    }
    const tag = /^\/docker\/buildx\/releases\/tag\/v([^/]+)$/.exec(path);
    if (tag && this.versions.includes(tag[1] as string)) return send(200, `<html>buildx v${tag[1]}</html>`);

    // GitHub answers release downloads with a redirect to its objects host; do the same within this server.
    const download = /^\/docker\/buildx\/releases\/download\/v([^/]+)\/([^/]+)$/.exec(path);
    if (download) return send(302, '', {location: `${origin}/objects/v${download[1]}/${download[2]}`});

    const object = /^\/objects\/v([^/]+)\/([^/]+)$/.exec(path);
    const version = object?.[1] as string;
    const file = decodeURIComponent((object?.[2] as string) ?? '');
    if (!object || !this.versions.includes(version)) return send(404, 'Not Found');
    const f = fault(file);
    if (f?.kind === 'not-found') return send(404, 'Not Found');
    if (f?.kind === 'status') return send(f.status, 'fault');

    let body: Buffer;
    if (file === 'checksums.txt') {
      body = Buffer.from(this.#checksums(version));
    } else {
      const p = this.#platforms.find(q => FakeBuildxReleases.assetName(version, q) === file);
      if (!p) return send(404, 'Not Found');
      body = FakeBuildxReleases.assetBody(version, p);
    }
    if (f?.kind === 'slow-body') {
      this.requests.push({path, status: 200});
      res.writeHead(200, {'content-length': String(body.length)});
      res.write(body.subarray(0, 16), () => this.onSlowBodyStarted?.());
      return;
    }
    send(200, body, {'content-type': 'application/octet-stream'});
  }

  /** checksums.txt as buildx publishes it (`sha256sum -b`: `<hex> *<name>`), with the checksum faults applied. */
  #checksums(version: string): string {
    const lines: string[] = [];
    for (const p of this.#platforms) {
      const name = FakeBuildxReleases.assetName(version, p);
      const f = this.fault && (this.fault.file === undefined || this.fault.file === name) ? this.fault : undefined;
      if (f?.kind === 'missing-checksum') continue;
      const sha =
        f?.kind === 'wrong-checksum'
          ? createHash('sha256').update(`not ${name}`).digest('hex')
          : FakeBuildxReleases.assetSha256(version, p);
      lines.push(`${sha} *${name}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

/**
 * Writes an executable `docker` into `dir` that does what the real CLI does for `docker buildx …`: runs
 * `$DOCKER_CONFIG/cli-plugins/docker-buildx buildx …` (DOCKER_CONFIG defaulting to ~/.docker), and fails
 * like docker when that plugin is missing. Other commands fail. Returns its path.
 */
export function writeFakeDocker(dir: string): string {
  mkdirSync(dir, {recursive: true});
  const path = join(dir, 'docker');
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      'config="${DOCKER_CONFIG:-$HOME/.docker}"',
      'if [ "$1" = buildx ]; then',
      '  shift',
      '  plugin="$config/cli-plugins/docker-buildx"',
      '  if [ ! -x "$plugin" ]; then echo "docker: \'buildx\' is not a docker command." >&2; exit 1; fi',
      '  exec "$plugin" buildx "$@"',
      'fi',
      'echo "fake docker: unsupported command: $*" >&2',
      'exit 1',
      ''
    ].join('\n')
  );
  chmodSync(path, 0o755);
  return path;
}
