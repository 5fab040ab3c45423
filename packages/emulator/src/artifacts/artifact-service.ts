import {randomUUID} from 'node:crypto';
import http, {type IncomingMessage, type ServerResponse} from 'node:http';
import type net from 'node:net';
import {type EmulatorClock, systemClock} from '../clock.js';
import {BodyTooLargeError, type HttpResult, readBody, writeResult} from '../http.js';
import {ARTIFACT_ADMIN_PREFIX, type ArtifactControls, handleArtifactAdmin} from './artifact-admin.js';
import {ArtifactCall, type ArtifactFaultRule, ArtifactFaults} from './artifact-faults.js';
import {type ArtifactRecord, ArtifactStore, type ArtifactStoreOpts} from './artifact-store.js';
import {BLOB_PREFIX, BlobApi, blobCall} from './blob-api.js';
import {BlobProblem} from './blob-problem.js';
import {type BackendIds, RuntimeTokens} from './runtime-token.js';
import {BlobSigner} from './signed-url.js';
import {TWIRP_CALLS, TWIRP_PREFIX, TwirpApi} from './twirp-api.js';
import {TwirpCode, twirpCodeOf, TwirpProblem} from './twirp-problem.js';

/** Largest blob request body: @actions/artifact sends 8 MiB blocks; a Put Blob may be larger. */
const BLOB_BODY_LIMIT = 64 * 1024 * 1024;

/** How long a signed upload or download URL stays valid (the service's are short-lived too). */
const SIGNED_URL_TTL_MS = 60 * 60 * 1000;

export interface ArtifactServiceOpts {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  clock?: EmulatorClock;
  /** Retention defaults and limit (ArtifactStoreOpts). */
  retention?: Omit<ArtifactStoreOpts, 'clock'>;
}

/**
 * GitHubArtifactService is GitHub's artifact service as @actions/artifact (v2+) speaks to it, on its own loopback
 * HTTP server: the results service's Twirp API under `/twirp/github.actions.results.api.v1.ArtifactService/`
 * (ACTIONS_RESULTS_URL is this server's origin) and the blob storage behind the signed URLs it hands out, under
 * `/blob/`. `runtimeToken` mints the job's ACTIONS_RUNTIME_TOKEN; `artifacts()` is what was uploaded;
 * `addFault` makes the next calls fail as the real service may. The same, over HTTP, under `/_artifacts/`
 * (artifact-admin.ts).
 */
export class GitHubArtifactService implements ArtifactControls {
  /** The workflow run's backend id (one run per service); tokens name it and each job's own id. */
  readonly runBackendId = randomUUID();
  readonly #server: http.Server;
  readonly #store: ArtifactStore;
  readonly #tokens: RuntimeTokens;
  readonly #faults = new ArtifactFaults();
  readonly #twirp: TwirpApi;
  readonly #blobs: BlobApi;
  #url = '';

  private constructor(opts: ArtifactServiceOpts) {
    const clock = opts.clock ?? systemClock;
    this.#store = new ArtifactStore({clock, ...opts.retention});
    this.#tokens = new RuntimeTokens({clock});
    const signer = new BlobSigner({clock});
    this.#twirp = new TwirpApi({
      store: this.#store,
      tokens: this.#tokens,
      signBlobUrl: (key, permission) => signer.sign(this.#url, `${BLOB_PREFIX}${key}`, permission, SIGNED_URL_TTL_MS)
    });
    this.#blobs = new BlobApi({store: this.#store, signer});
    this.#server = http.createServer((req, res) => {
      this.#dispatch(req, res).catch((e: unknown) => {
        writeResult(res, new TwirpProblem(TwirpCode.Internal, e instanceof Error ? e.message : String(e)).toResult());
      });
    });
  }

  /** Starts the server; resolves once it listens. */
  static async start(opts: ArtifactServiceOpts = {}): Promise<GitHubArtifactService> {
    const service = new GitHubArtifactService(opts);
    await new Promise<void>((resolve, reject) => {
      service.#server.once('error', reject);
      service.#server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
        service.#server.off('error', reject);
        resolve();
      });
    });
    const {address, port, family} = service.#server.address() as net.AddressInfo;
    service.#url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
    return service;
  }

  /** ACTIONS_RESULTS_URL: the server's origin, with the trailing slash the runner's value has. */
  get resultsUrl(): string {
    return `${this.#url}/`;
  }

  /**
   * An ACTIONS_RUNTIME_TOKEN for one job of the service's run (`jobBackendId` default: a new one per call),
   * valid `ttlMs` (default 6 hours).
   */
  runtimeToken(opts: {jobBackendId?: string; ttlMs?: number} = {}): string {
    const ids: BackendIds = {
      workflowRunBackendId: this.runBackendId,
      workflowJobRunBackendId: opts.jobBackendId ?? randomUUID()
    };
    return this.#tokens.mint(ids, opts.ttlMs);
  }

  /** The variables the runner gives an action step for this service: ACTIONS_RESULTS_URL and ACTIONS_RUNTIME_TOKEN. */
  runnerEnv(opts: {jobBackendId?: string} = {}): Record<string, string> {
    return {ACTIONS_RESULTS_URL: this.resultsUrl, ACTIONS_RUNTIME_TOKEN: this.runtimeToken(opts)};
  }

  /** Every artifact created, pending ones included, with its bytes. */
  artifacts(): ArtifactRecord[] {
    return this.#store.all();
  }

  /** Makes the next matching calls fail (see ArtifactFaultRule); throws on a bad rule. */
  addFault(rule: ArtifactFaultRule): void {
    this.#faults.add(rule);
  }

  clearFaults(): void {
    this.#faults.clear();
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    if (!this.#server.listening) return;
    const closed = new Promise<void>(resolve => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  async #dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://artifacts.invalid');
    const method = req.method ?? 'GET';
    if (url.pathname.startsWith(TWIRP_PREFIX)) {
      const call = TWIRP_CALLS.find(c => `${TWIRP_PREFIX}${c}` === url.pathname);
      const body = await this.#body(req, res, undefined, e => twirpBodyError(e));
      if (body === undefined) return;
      if (call === undefined || method !== 'POST') {
        return writeResult(
          res,
          new TwirpProblem(TwirpCode.BadRoute, `no route for ${method} ${url.pathname}`).toResult()
        );
      }
      if (
        this.#fault(
          call,
          res,
          rule =>
            new TwirpProblem(
              twirpCodeOf(rule.status ?? 503),
              rule.msg ?? `fault injected by the emulator on ${call}`,
              rule.status
            )
        )
      ) {
        return;
      }
      return writeResult(
        res,
        this.#twirp.handle(call, {
          authorization: req.headers.authorization,
          contentType: req.headers['content-type'],
          body
        })
      );
    }
    if (url.pathname.startsWith(BLOB_PREFIX)) {
      const call = blobCall(method, url);
      const body = await this.#body(req, res, BLOB_BODY_LIMIT, e => blobBodyError(e));
      if (body === undefined) return;
      if (call === undefined) {
        return writeBlob(
          res,
          new BlobProblem(400, 'UnsupportedHttpVerb', `${method} ${url.search} is not supported.`).toResult()
        );
      }
      const faulted = this.#fault(
        call,
        res,
        rule =>
          new BlobProblem(
            rule.status ?? 503,
            faultCode(rule.status ?? 503),
            rule.msg ?? `Fault injected by the emulator on ${call}.`
          )
      );
      if (faulted) return;
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v])
      );
      return writeBlob(res, this.#blobs.handle(call, {method, url, headers, body}));
    }
    if (url.pathname === ARTIFACT_ADMIN_PREFIX || url.pathname.startsWith(`${ARTIFACT_ADMIN_PREFIX}/`)) {
      const body = await this.#body(req, res, undefined, e => twirpBodyError(e));
      if (body !== undefined) writeResult(res, handleArtifactAdmin(this, method, url.pathname, body));
      return;
    }
    writeResult(res, {status: 404, body: `No route for ${method} ${url.pathname}`});
  }

  /** The request body, or undefined after answering an unreadable one. */
  async #body(
    req: IncomingMessage,
    res: ServerResponse,
    limit: number | undefined,
    answer: (e: unknown) => HttpResult
  ): Promise<Buffer | undefined> {
    try {
      return await readBody(req, limit);
    } catch (e) {
      writeResult(res, answer(e));
      return undefined;
    }
  }

  /** Applies the call's fault, if any; true when it answered (or dropped) the request. */
  #fault(
    call: ArtifactCall,
    res: ServerResponse,
    problem: (rule: ArtifactFaultRule) => TwirpProblem | BlobProblem
  ): boolean {
    const rule = this.#faults.take(call);
    if (rule === undefined) return false;
    if (rule.action === 'reset') {
      res.socket?.destroy();
      return true;
    }
    const result = problem(rule).toResult();
    if (
      call === ArtifactCall.PutBlock ||
      call === ArtifactCall.PutBlockList ||
      call === ArtifactCall.PutBlob ||
      call === ArtifactCall.GetBlob
    ) {
      writeBlob(res, result);
    } else {
      writeResult(res, result);
    }
    return true;
  }
}

/** Writes a blob answer: bytes as they are (Get Blob), everything else as writeResult does. */
function writeBlob(res: ServerResponse, result: HttpResult): void {
  if (!Buffer.isBuffer(result.body)) return writeResult(res, result);
  if (res.headersSent || res.destroyed) return;
  res.writeHead(result.status, result.headers);
  res.end(result.body);
}

/** The Azure error code of an injected status. */
function faultCode(status: number): string {
  if (status === 403) return 'AuthenticationFailed';
  if (status === 404) return 'BlobNotFound';
  if (status === 503) return 'ServerBusy';
  return status >= 500 ? 'InternalError' : 'InvalidInput';
}

function twirpBodyError(e: unknown): HttpResult {
  const code = e instanceof BodyTooLargeError ? TwirpCode.ResourceExhausted : TwirpCode.InvalidArgument;
  return new TwirpProblem(
    code,
    `could not read the request body: ${e instanceof Error ? e.message : String(e)}`
  ).toResult();
}

function blobBodyError(e: unknown): HttpResult {
  if (e instanceof BodyTooLargeError) return new BlobProblem(413, 'RequestBodyTooLarge', e.message).toResult();
  return new BlobProblem(
    400,
    'InvalidInput',
    `Could not read the request body: ${e instanceof Error ? e.message : String(e)}`
  ).toResult();
}
