import net from 'node:net';
import type {Duplex} from 'node:stream';
import {ControlApiBackend} from './buildkit-control.js';
import {type Architecture, type BuilderArch, isArchitecture} from './pricing.js';

/** BuildkitBackend serves one client connection that passed the builder's mTLS handshake. */
export interface BuildkitBackend {
  /** 'handshake-only', 'control-api' or 'dockerd'. */
  readonly kind: string;
  /** Takes ownership of the (decrypted) client stream. */
  serve(client: Duplex): void;
}

/**
 * HandshakeOnlyBackend accepts the connection and answers HTTP/2's client connection preface with the
 * server's (an empty SETTINGS frame: the first frame a gRPC server sends, RFC 9113 §3.4), then discards what
 * the client sends and ends its side when the client ends. Bytes that are not the preface get no answer.
 * Enough for clients that check TLS and HTTP/2 (readiness); a real build needs DockerGrpcBackend.
 */
export class HandshakeOnlyBackend implements BuildkitBackend {
  readonly kind = 'handshake-only';

  serve(client: Duplex): void {
    client.on('error', () => client.destroy());
    client.on('end', () => client.end());
    let first = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      first = Buffer.concat([first, chunk]);
      if (first.length < H2_CLIENT_MAGIC.length && H2_CLIENT_MAGIC.subarray(0, first.length).equals(first)) return;
      client.off('data', onData);
      if (first.subarray(0, H2_CLIENT_MAGIC.length).equals(H2_CLIENT_MAGIC)) client.write(H2_SERVER_PREFACE);
    };
    client.on('data', onData);
    client.resume();
  }
}

/** The fixed start of an HTTP/2 client's connection preface. */
const H2_CLIENT_MAGIC = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** An empty SETTINGS frame (length 0, type 4, no flags, stream 0): a server's connection preface. */
const H2_SERVER_PREFACE = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);

/** The HTTP request that makes dockerd hand the connection over to its embedded BuildKit (h2c gRPC). */
export const DOCKERD_GRPC_HIJACK_REQUEST =
  'POST /grpc HTTP/1.1\r\nHost: docker\r\nContent-Length: 0\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n';

/** A response head longer than this is not dockerd's 101. */
const MAX_HEAD_BYTES = 16 * 1024;

export interface DockerGrpcBackendOpts {
  /** Path of dockerd's unix socket, e.g. /var/run/docker.sock. */
  socketPath: string;
  /** How long to wait for dockerd's `101 Switching Protocols`; default 10 s. */
  upgradeTimeoutMs?: number;
  /** Called when a connection could not be proxied (for logs). */
  onError?: (error: Error) => void;
}

/**
 * DockerGrpcBackend proxies each connection to dockerd's embedded BuildKit: it opens the unix socket, sends
 * `POST /grpc` with `Upgrade: h2c`, waits for the `HTTP/1.1 101` head and then pipes raw bytes both ways
 * (bytes after the head go to the client). This is how buildx's docker driver reaches BuildKit; see
 * https://github.com/moby/moby/blob/master/api/server/router/grpc/grpc_routes.go
 * On any failure the client connection is closed.
 */
export class DockerGrpcBackend implements BuildkitBackend {
  readonly kind = 'dockerd';
  readonly #socketPath: string;
  readonly #upgradeTimeoutMs: number;
  readonly #onError: (error: Error) => void;

  constructor(opts: DockerGrpcBackendOpts) {
    this.#socketPath = opts.socketPath;
    this.#upgradeTimeoutMs = opts.upgradeTimeoutMs ?? 10_000;
    this.#onError = opts.onError ?? (() => undefined);
  }

  /** The dockerd socket this backend proxies to. */
  get socketPath(): string {
    return this.#socketPath;
  }

  serve(client: Duplex): void {
    const upstream = net.connect({path: this.#socketPath});
    let failed = false;
    const fail = (error?: Error): void => {
      clearTimeout(timer);
      if (error && !failed) this.#onError(error);
      failed = true;
      client.destroy();
      upstream.destroy();
    };
    const timer = setTimeout(
      () => fail(new Error(`dockerd did not answer the /grpc upgrade within ${this.#upgradeTimeoutMs} ms`)),
      this.#upgradeTimeoutMs
    );
    client.on('error', () => fail());
    client.on('close', () => fail());
    upstream.on('error', e => fail(new Error(`dockerd socket ${this.#socketPath}: ${e.message}`)));
    upstream.on('close', () => fail());
    upstream.on('connect', () => upstream.write(DOCKERD_GRPC_HIJACK_REQUEST));

    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD_BYTES) fail(new Error('dockerd sent an oversized response head'));
        return;
      }
      upstream.off('data', onData);
      const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      if (!/^HTTP\/1\.1 101\b/.test(statusLine)) {
        fail(new Error(`dockerd refused the /grpc upgrade: ${statusLine}`));
        return;
      }
      clearTimeout(timer);
      const rest = head.subarray(end + 4);
      if (rest.length > 0) client.write(rest);
      // Both pipes are attached in this same tick, so no bytes are lost between the head and the pipe.
      upstream.pipe(client);
      client.pipe(upstream);
    };
    upstream.on('data', onData);
  }
}

/** Picks the backend that serves one builder, by its architecture. */
export type BackendSelector = (arch: BuilderArch) => BuildkitBackend;

/**
 * What builders without a dockerd answer (the emulator's `buildkit.api`):
 * - 'control': BuildKit's Control API, Info and ListWorkers (ControlApiBackend); other calls UNIMPLEMENTED.
 * - 'no-info': the same without Info, which answers UNIMPLEMENTED, as BuildKit < 0.11 does.
 * - 'preface-only': an HTTP/2 preface and no call answered, as a front with nothing gRPC behind it
 *   (HandshakeOnlyBackend).
 */
export const BUILDKIT_APIS = ['control', 'no-info', 'preface-only'] as const;
export type BuildkitApi = (typeof BUILDKIT_APIS)[number];

/** The BuildKit that builders without a dockerd emulate. */
export interface BuildkitEmulation {
  /** Default 'control'. */
  api?: BuildkitApi;
  /** The version Info and ListWorkers report; default DEFAULT_BUILDKIT_VERSION ('v0.13.2'). */
  version?: string;
}

export interface BuildkitBackendsOpts {
  /** The dockerd every builder proxies to unless `dockerSocketByArch` names one for its architecture. */
  dockerSocket?: string;
  /**
   * A dockerd per architecture, so that the builders of one assignment reach different BuildKits as the
   * service's (one VM each, spec §2.5) do. A multi-arch builder ('amd64,arm64') is one VM: it uses `dockerSocket`.
   */
  dockerSocketByArch?: Partial<Record<Architecture, string>>;
  /** What builders without a dockerd answer. */
  buildkit?: BuildkitEmulation;
  onError?: (error: Error) => void;
}

/**
 * The backends of an emulator: builders of an architecture named in `dockerSocketByArch` proxy to that
 * dockerd, the others to `dockerSocket`; with neither, they answer as `buildkit.api` says. Builders on one
 * socket share one backend; each builder of the Control API gets its own (its own worker ID, as one VM).
 */
export function createBuildkitBackends(opts: BuildkitBackendsOpts): BackendSelector {
  for (const key of Object.keys(opts.dockerSocketByArch ?? {})) {
    if (!isArchitecture(key)) {
      throw new Error(`Invalid dockerSocketByArch: ${JSON.stringify(key)} is not an architecture (amd64 or arm64)`);
    }
  }
  const api = opts.buildkit?.api ?? 'control';
  if (!BUILDKIT_APIS.includes(api)) {
    throw new Error(`Invalid buildkit.api: ${JSON.stringify(api)}; use one of ${BUILDKIT_APIS.join(', ')}`);
  }
  const version = opts.buildkit?.version;
  if (version !== undefined && typeof version !== 'string') {
    throw new Error(`Invalid buildkit.version: ${JSON.stringify(version)}; use a string such as "v0.13.2"`);
  }
  const bySocket = new Map<string, BuildkitBackend>();
  const handshakeOnly = new HandshakeOnlyBackend();
  return arch => {
    const socket = (isArchitecture(arch) ? opts.dockerSocketByArch?.[arch] : undefined) ?? opts.dockerSocket;
    if (!socket) {
      return api === 'preface-only' ? handshakeOnly : new ControlApiBackend({arch, version, info: api === 'control'});
    }
    let backend = bySocket.get(socket);
    if (!backend) {
      backend = new DockerGrpcBackend({socketPath: socket, onError: opts.onError});
      bySocket.set(socket, backend);
    }
    return backend;
  };
}
