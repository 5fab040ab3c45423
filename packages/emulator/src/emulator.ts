import type {EmulatorControls} from './admin-routes.js';
import {type ArtifactServiceOpts, GitHubArtifactService} from './artifacts/artifact-service.js';
import {ServiceApi} from './api-routes.js';
import {type ApiKey, ApiKeyAuth, DEFAULT_API_KEYS} from './auth.js';
import type {Builder, BuilderDetails} from './builder.js';
import type {EndpointMode} from './builder-endpoint.js';
import {BuilderRegistry, type BuilderIdForm} from './builder-registry.js';
import {type BuildkitEmulation, createBuildkitBackends} from './buildkit-backend.js';
import {CiApi} from './ci-routes.js';
import {type EmulatorClock, systemClock} from './clock.js';
import {PkiPool} from './pki-pool.js';
import {FaultInjector, type FaultRule, type StoredFault} from './faults.js';
import {Ledger, type LedgerEntry} from './ledger.js';
import type {Architecture} from './pricing.js';
import {type Profile, ProfileCatalog, type ProfileConfig} from './profiles.js';
import {RequestLog, type RequestRecord} from './request-log.js';
import {type RunnerImageRecord, RunnerImageStore} from './runner-images.js';
import {type RunnerRecord, RunnerStore, type StockRunnerConfig} from './runners.js';
import {ApiServer} from './server.js';
import {DEFAULT_STACKS, StackCatalog, type StackConfig, type StackRecord} from './stacks.js';
import {type ApiTlsMaterial, generateApiTls} from './testing/api-certificate.js';

/** Default builder idle time-out: 30 minutes (spec §3 rule 2 says "not shown"; the emulator's choice). */
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;

/** Options of Emulator.start. */
export interface EmulatorOpts {
  /** Listen address of the API; default '127.0.0.1'. Builders always listen on 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  profiles: ProfileConfig[];
  /** Default [{key: 'emulator-key', scopes: ['ci', 'cache', 'builders']}]. */
  apiKeys?: ApiKey[];
  /** Builder idle time-out; default 30 min; 0 or Infinity disables it. */
  idleTimeoutMs?: number;
  /** Added to every API response; default 0. */
  latencyMs?: number;
  /** When set, builders proxy to this dockerd's BuildKit; otherwise they answer as `buildkit` says. */
  dockerSocket?: string;
  /**
   * A dockerd per architecture (e.g. {arm64: '/run/arm.sock'}): builders of that architecture proxy to its
   * BuildKit instead of `dockerSocket`'s, so the nodes of a multi-arch assignment each get their own BuildKit,
   * as the service's one-VM-per-builder does (buildx ≥ 0.16 gives all nodes of a build one build ref, which
   * collides on a shared BuildKit). Multi-arch builders ('amd64,arm64') use `dockerSocket`.
   */
  dockerSocketByArch?: Partial<Record<Architecture, string>>;
  /**
   * What builders without a dockerd answer: `api` 'control' (default: BuildKit's Control API, Info and
   * ListWorkers), 'no-info' (Info UNIMPLEMENTED, as BuildKit < 0.11) or 'preface-only' (HTTP/2's preface,
   * no call answered); `version` the BuildKit version reported (default 'v0.13.2').
   */
  buildkit?: BuildkitEmulation;
  /** Time source for timestamps, readiness, idle time-outs and delays; default the system clock. */
  clock?: EmulatorClock;
  /** Receives one line per API request, idle time-out and backend error (the CLI prints them). */
  log?: (line: string) => void;
  /** Stacks of the stack listing; default DEFAULT_STACKS (one `ec2` stack, id `stk_ec2_default`). */
  stacks?: StackConfig[];
  /** The service's own runners, listed besides the custom ones (`stock_runner_id` set); default none. */
  stockRunners?: StockRunnerConfig[];
  /**
   * Serve the API over HTTPS with a certificate for these names (localhost and 127.0.0.1 are always included),
   * signed by a private CA generated at start (`apiCaCert`: what clients must trust). Default: plain HTTP.
   */
  https?: {hostnames?: string[]};
  /**
   * Make this many builder PKIs per profile host name at start, used by later assignments before any is made
   * on demand (see PkiPool): for benches, where making them at assignment (~15 ms of CPU each) would share
   * the cores with the client measured. Default 0.
   */
  pkiPool?: number;
  /** The form of builder ids: 'prefixed' (default, `bld_<hex>`), 'uuid' or 'numeric' (BUILDER_ID_FORMS). */
  builderIds?: BuilderIdForm;
  /**
   * GitHub's artifact service (`artifacts`), on its own loopback HTTP server: its retention defaults and limit,
   * or false not to start it. Default: started, 90 days.
   */
  artifactService?: Pick<ArtifactServiceOpts, 'retention'> | false;
}

/**
 * Emulator is a local, stateful implementation of the service API: it assigns builders from configured
 * profiles, gives each fresh mTLS material and a TLS listener (optionally proxied to a real dockerd BuildKit),
 * bills them in a ledger, and can inject faults. It also keeps runners and runner images in memory and lists
 * seeded stacks (spec §4.1–§4.3).
 */
export class Emulator implements EmulatorControls {
  /** The first configured API key, handy for clients. */
  readonly apiKey: string;
  readonly #server: ApiServer;
  readonly #ledger: Ledger;
  readonly #registry: BuilderRegistry;
  readonly #pkiPool: PkiPool | undefined;
  readonly #faults = new FaultInjector();
  readonly #requestLog = new RequestLog();
  readonly #catalog: ProfileCatalog;
  readonly #stacks: StackCatalog;
  readonly #images: RunnerImageStore;
  readonly #runners: RunnerStore;
  #latencyMs: number;
  #url = '';
  readonly #apiCaCert?: string;
  #artifacts?: GitHubArtifactService;
  #closing?: Promise<void>;

  private constructor(opts: EmulatorOpts, apiTls?: ApiTlsMaterial, pkiPool?: PkiPool) {
    this.#pkiPool = pkiPool;
    const clock = opts.clock ?? systemClock;
    const keys = opts.apiKeys ?? [...DEFAULT_API_KEYS];
    if (keys.length === 0) throw new Error('At least one API key is required');
    const auth = new ApiKeyAuth({keys});
    this.apiKey = keys[0]!.key;
    this.#catalog = new ProfileCatalog({profiles: opts.profiles});
    this.#latencyMs = validLatency(opts.latencyMs ?? 0);
    this.#ledger = new Ledger({clock});
    const log = opts.log;
    this.#registry = new BuilderRegistry({
      clock,
      ledger: this.#ledger,
      faults: this.#faults,
      backend: createBuildkitBackends({
        dockerSocket: opts.dockerSocket,
        dockerSocketByArch: opts.dockerSocketByArch,
        buildkit: opts.buildkit,
        onError: e => log?.(e.message)
      }),
      idleTimeoutMs: opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      onIdleTimeout: id => log?.(`builder ${id} terminated after its idle time-out`),
      pkiPool,
      builderIds: opts.builderIds
    });
    this.#stacks = new StackCatalog({stacks: opts.stacks ?? DEFAULT_STACKS});
    this.#images = new RunnerImageStore({clock, stacks: this.#stacks});
    this.#runners = new RunnerStore({
      clock,
      stacks: this.#stacks,
      images: this.#images,
      stockRunners: opts.stockRunners
    });
    const ci = new CiApi({stacks: this.#stacks, images: this.#images, runners: this.#runners});
    this.#server = new ApiServer({
      service: new ServiceApi({auth, profiles: this.#catalog, registry: this.#registry, clock, ci}),
      controls: this,
      faults: this.#faults,
      requestLog: this.#requestLog,
      clock,
      latencyMs: () => this.#latencyMs,
      onRequest: log,
      tls: apiTls
    });
    this.#apiCaCert = apiTls?.caCert;
  }

  /** Validates the options, starts the API server and resolves once it listens. */
  static async start(opts: EmulatorOpts): Promise<Emulator> {
    const apiTls = opts.https ? await generateApiTls({hostnames: opts.https.hostnames ?? []}) : undefined;
    const pool = opts.pkiPool
      ? await PkiPool.fill(
          opts.pkiPool,
          new ProfileCatalog({profiles: opts.profiles}).all().map(p => p.hostName)
        )
      : undefined;
    const emulator = new Emulator(opts, apiTls, pool);
    await emulator.#server.listen(opts.host ?? '127.0.0.1', opts.port ?? 0);
    if (opts.artifactService !== false) {
      try {
        emulator.#artifacts = await GitHubArtifactService.start({clock: opts.clock, ...opts.artifactService});
      } catch (e) {
        await emulator.close();
        throw e;
      }
    }
    const {address, port, family} = emulator.#server.address();
    const scheme = apiTls ? 'https' : 'http';
    emulator.#url = `${scheme}://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
    return emulator;
  }

  /** Base URL of the service (the API is under /api/v1), e.g. 'http://127.0.0.1:PORT' ('https://…' with `https`). */
  get url(): string {
    return this.#url;
  }

  /** PKIs of the `pkiPool` option not used yet (a bench checks it did not run out); undefined without a pool. */
  get pkiPoolLeft(): number | undefined {
    return this.#pkiPool?.size;
  }

  /** PEM of the private CA that signed the API's certificate (option `https`); undefined over plain HTTP. */
  get apiCaCert(): string | undefined {
    return this.#apiCaCert;
  }

  /**
   * GitHub's artifact service, as @actions/artifact speaks to it: `runnerEnv()` gives a step its
   * ACTIONS_RESULTS_URL and ACTIONS_RUNTIME_TOKEN, `artifacts()` what was uploaded. Throws when started without it.
   */
  get artifacts(): GitHubArtifactService {
    if (!this.#artifacts) throw new Error('The emulator was started with artifactService: false');
    return this.#artifacts;
  }

  /** Every builder ever assigned, billed up to now for live ones. */
  ledger(): LedgerEntry[] {
    return this.#ledger.entries();
  }

  /** Ledger entries of builders not terminated. */
  assignedBuilders(): LedgerEntry[] {
    return this.#ledger.assigned();
  }

  /** Sum of all ledger costs in USD. */
  totalCost(): number {
    return this.#ledger.totalCost();
  }

  /** API requests received so far (admin routes excluded). */
  requests(): RequestRecord[] {
    return this.#requestLog.all();
  }

  /** The configured profiles with defaults filled in (ids included). */
  profiles(): Profile[] {
    return this.#catalog.all();
  }

  /** The stacks served by GET /api/v1/stacks. */
  stacks(): StackRecord[] {
    return this.#stacks.list();
  }

  /** Runner images created so far, in creation order. */
  runnerImages(): RunnerImageRecord[] {
    return this.#images.all();
  }

  /** Runners (stock ones first, then custom ones in creation order); deleted runners are gone. */
  runners(): RunnerRecord[] {
    return this.#runners.list();
  }

  /** Adds a fault rule (validated; throws on a bad rule) and returns its id. */
  addFault(rule: FaultRule): string {
    return this.#faults.add(rule);
  }

  /** Removes one fault rule; false when unknown or used up. */
  removeFault(id: string): boolean {
    return this.#faults.remove(id);
  }

  /** Active fault rules with their remaining uses (null = unlimited). */
  faults(): (StoredFault & {remaining: number | null})[] {
    return this.#faults.list();
  }

  clearFaults(): void {
    this.#faults.clear();
  }

  /** Sets the latency added to every API response. */
  setLatency(ms: number): void {
    this.#latencyMs = validLatency(ms);
  }

  latency(): number {
    return this.#latencyMs;
  }

  /** The details response of a builder, or undefined when unknown. */
  builderDetails(id: string): BuilderDetails | undefined {
    return this.#registry.get(id)?.details();
  }

  /** Every client key handed out so far, to scan logs and files for leaks. */
  issuedClientKeys(): string[] {
    return this.#registry
      .all()
      .map(b => b.issuedClientKey())
      .filter(k => k !== '');
  }

  /** Makes a pending builder ready now; throws when unknown, failed or terminated. */
  markReady(builderId: string): void {
    this.#builder(builderId).markReady();
  }

  /** Puts a builder in 'failed'; throws when unknown or terminated. */
  markFailed(builderId: string): void {
    this.#builder(builderId).markFailed();
  }

  /**
   * Changes how a builder's listener treats connections: 'silent' (open connections stay open, nothing
   * flows; new ones are never answered), 'kill' (connections destroyed, connections refused) or 'normal'
   * (back from 'silent'). The builder's status does not change. Throws when the builder is unknown, has no
   * listener, is failed or terminated, or after 'kill'.
   */
  setEndpointMode(builderId: string, mode: EndpointMode): void {
    this.#builder(builderId).setEndpointMode(mode);
  }

  /** Clears faults and the request log; keeps the ledger and the builders. */
  reset(): void {
    this.#faults.clear();
    this.#requestLog.clear();
  }

  /**
   * Terminates the remaining builders (reason 'emulator-shutdown'), closes every builder listener and the API
   * server. The ledger stays readable. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#registry.closeAll('emulator-shutdown');
      await this.#server.close();
      await this.#artifacts?.close();
    })();
    return this.#closing;
  }

  #builder(id: string): Builder {
    const builder = this.#registry.get(id);
    if (!builder) throw new Error(`No builder ${JSON.stringify(id)}`);
    return builder;
  }
}

function validLatency(ms: number): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new Error('Latency must be a non-negative number of milliseconds');
  }
  return ms;
}
