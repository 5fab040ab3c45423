import type {Buildx} from '../buildx/buildx.js';
import type {NodeCertPaths} from '../buildx/buildx-args.js';
import {appendNodesToStore, type StoreNode} from '../buildx/buildx-store.js';
import {writeBuilderCerts} from '../certs/cert-store.js';
import type {Clock} from '../clock.js';
import {parseBuilderInspect, type InspectedBuilder} from '../docker/builder-inspect.js';
import type {Logger} from '../logger.js';
import type {BuildkitInfo, BuildkitInfoCall} from './buildkit-info.js';
import {CancelledError} from './cancelled-error.js';
import type {ReadyBuilder} from './readiness.js';

/** One buildx node, backed by one remote builder. */
export interface ProvisionedNode {
  /** buildx node name. */
  name: string;
  builderId: string;
  /** `tcp://host:port`. */
  endpoint: string;
  platforms: string[];
  certs: NodeCertPaths;
}

export interface BuildxSetupOpts {
  buildx: Buildx;
  clock: Clock;
  logger: Logger;
  /** buildx builder name. */
  builderName: string;
  /** The private folder the certificates go to. */
  certDir: string;
  /** Node names by builder index (stable whatever order the builders become ready in). */
  nodeNames: string[];
  /** false: only the certificates are written. */
  setupBuildx: boolean;
  /** Make the builder buildx's default. */
  use: boolean;
  /** Epoch ms (on `clock`) by which every buildx call must end. */
  deadline: number;
  signal?: AbortSignal;
  /** Called once the buildx builder exists (its first node created), so the state can say so at once. */
  onCreated: () => void;
  /**
   * Asks a builder's BuildKit for its version (when added, and once ready if it did not answer); when every
   * node answers, `buildx inspect --bootstrap` is not run. None: always bootstrap.
   */
  buildkitInfo?: BuildkitInfoCall;
  /** Writes nodes into buildx's record of the builder; default appendNodesToStore. */
  appendNodes?: typeof appendNodesToStore;
}

const PHASE = 'while setting up the buildx builder';
const NOT_ASKED: Promise<BuildkitInfo> = Promise.resolve({why: 'its BuildKit was not asked'});
/** Time limit of one Control/Info call: an answer is a round trip; without one, the bootstrap decides. */
const INFO_TIMEOUT_MS = 5000;

/**
 * BuildxSetup makes each builder a buildx node the moment its details are complete (add), while readiness
 * still checks its TLS, not once all are ready: its certificates are written at once, then its node is added:
 * the first builder added creates the buildx builder, the others join it once it exists, by writing buildx's
 * record of the builder directly when it holds exactly what buildx wrote (buildx-store.ts: no process, where
 * `create --append` costs one each under buildx's store lock), else with `create --append`. Its BuildKit is
 * asked its version (Control/Info) at once (that call's connection is also readiness's proof: see add), and
 * again once the builder is proven ready (ready) if it did not answer before; when all answer, inspect()
 * needs no `buildx inspect --bootstrap`. Node names follow the builders' order in the assignment; the order
 * of the nodes in buildx is the order in which they were added. The first failure ends the setup: `failed`
 * aborts with it and no further buildx call starts. A node of a builder that then never becomes ready goes
 * with the rest of the buildx builder in the teardown.
 */
export class BuildxSetup {
  readonly #opts: BuildxSetupOpts;
  readonly #nodes: ProvisionedNode[] = [];
  readonly #facts: Promise<BuildkitInfo>[] = [];
  readonly #work: Promise<void>[] = [];
  /** The nodes in buildx's record, in its order, while the record is written directly; undefined once not. */
  #stored: StoreNode[] | undefined = [];
  /** Nodes waiting for the next direct write of the record, each told whether it was written. */
  #toWrite: {node: ProvisionedNode; written: Deferred<boolean>}[] = [];
  readonly #failed = new AbortController();
  /** Settles with the first node's `buildx create`. */
  readonly #created = deferred();
  #creatorChosen = false;
  #halted = false;

  constructor(opts: BuildxSetupOpts) {
    this.#opts = opts;
    this.#created.promise.catch(() => undefined);
  }

  /** Aborts with the first failure of the setup. */
  get failed(): AbortSignal {
    return this.#failed.signal;
  }

  /**
   * Starts setting up the builder at `index` (nothing once halted); never throws: a failure aborts `failed`
   * and rejects nodes(). Returns whether its Control/Info call proved the builder ready (see BuildkitInfo's
   * `proved`), when it is asked one.
   */
  add(ready: ReadyBuilder, index: number): Promise<boolean> | undefined {
    if (this.#halted) return undefined;
    const o = this.#opts;
    const name = o.nodeNames[index] ?? `node-${index}`;
    const creator = !this.#creatorChosen;
    this.#creatorChosen = true;
    // Runs synchronously up to the spawn of the first node's `buildx create` (the certificates are written
    // synchronously), so that process starts before the TLS work below and readiness's probe.
    const work = (async () => {
      const certs = writeBuilderCerts(o.certDir, name, ready.pems);
      const node: ProvisionedNode = {
        name,
        builderId: ready.id,
        endpoint: ready.endpoint.url,
        platforms: ready.platforms,
        certs
      };
      if (o.setupBuildx) await this.#addNode(node, creator);
      this.#nodes[index] = node;
    })();
    this.#work.push(
      work.catch((e: unknown) => {
        this.#halted = true;
        if (!this.#failed.signal.aborted) this.#failed.abort(e);
      })
    );
    if (!o.setupBuildx) return undefined;
    // Asked at once: its connection is readiness's proof, and the answer usually comes before the node is made.
    const info = this.#askVersion(ready);
    this.#facts[index] = info;
    return info.then(f => f.proved === true);
  }

  /**
   * The builder at `index` is proven ready (its node may still be in the making). Its BuildKit was asked for
   * its version when it was added, before it was ready; without an answer then, it is asked again now.
   */
  ready(ready: ReadyBuilder, index: number): void {
    if (this.#halted || !this.#opts.setupBuildx) return;
    const early = this.#facts[index];
    this.#facts[index] = early
      ? early.then(f => (f.version !== undefined ? f : this.#askVersion(ready)))
      : this.#askVersion(ready);
  }

  /** Every node added so far, by builder index, once all are set up; rejects with the first failure. */
  async nodes(): Promise<ProvisionedNode[]> {
    await Promise.all(this.#work);
    if (this.#failed.signal.aborted) throw this.#failed.signal.reason;
    return this.#nodes.filter(n => n !== undefined);
  }

  /** Stops the setup and waits for the buildx call in flight: none runs after this resolves. */
  async halt(): Promise<void> {
    this.#halted = true;
    await Promise.all(this.#work);
  }

  /**
   * The builder as `buildx inspect --bootstrap` reports it: from the BuildKit versions the nodes gave when
   * every one did (no process), else from running it (it also boots every node and checks it is up).
   */
  async inspect(): Promise<InspectedBuilder> {
    const o = this.#opts;
    if (!this.#creatorChosen) throw new Error('no builder to set up');
    if (o.signal?.aborted) throw new CancelledError(PHASE);
    // Each node with what its BuildKit answered (flatMap skips the indexes of builders that have no node).
    const asked = this.#nodes.flatMap((node, i) => [{node, info: this.#facts[i] ?? NOT_ASKED}]);
    const answered = await Promise.all(asked.map(async a => ({node: a.node, info: await a.info})));
    const missing = answered.find(a => a.info.version === undefined)?.info;
    if (missing === undefined) {
      for (const {node: n, info} of answered) {
        o.logger.info(
          `Node ${n.name}: BuildKit ${info.version} at ${n.endpoint}, ${n.platforms.join(', ') || 'platforms not given'}`
        );
      }
      o.logger.debug('BuildxSetup: every node told its BuildKit version; `buildx inspect --bootstrap` skipped');
      return {
        name: o.builderName,
        driver: 'remote',
        nodes: answered.map(({node: n, info}) => ({
          name: n.name,
          endpoint: n.endpoint,
          status: 'running',
          buildkit: info.version,
          platforms: n.platforms
        }))
      };
    }
    if ('why' in missing) o.logger.debug(`BuildxSetup: ${missing.why}; booting with buildx`);
    const output = await o.buildx.bootstrap(o.builderName, {signal: o.signal, timeoutMs: this.#timeLeft()});
    if (o.signal?.aborted) throw new CancelledError('while booting the buildx builder');
    return parseBuilderInspect(output);
  }

  #askVersion(ready: ReadyBuilder): Promise<BuildkitInfo> {
    const o = this.#opts;
    if (!o.buildkitInfo) return Promise.resolve({why: 'no BuildKit version asked'});
    return o.buildkitInfo({
      hostname: ready.endpoint.hostname,
      port: ready.endpoint.port,
      pems: ready.pems,
      timeoutMs: Math.min(INFO_TIMEOUT_MS, this.#timeLeft()),
      clock: o.clock,
      signal: o.signal ? AbortSignal.any([this.#failed.signal, o.signal]) : this.#failed.signal
    });
  }

  /**
   * The first builder ready creates the builder; every other one waits for that, then joins it: by a direct
   * write of buildx's record (the nodes that wait together in one write), while the record is what buildx
   * and we wrote; else by `create --append` (buildx runs it under its store's file lock, so appends to one
   * builder may be started together: each reads the store as the one before left it).
   */
  async #addNode(node: ProvisionedNode, creator: boolean): Promise<void> {
    if (creator) {
      try {
        await this.#create(node, false);
        this.#stored?.push(storeNode(node));
        this.#created.resolve();
      } catch (e) {
        this.#created.reject(e);
        throw e;
      }
      return;
    }
    await this.#created.promise;
    const written = deferred<boolean>();
    this.#toWrite.push({node, written});
    // After the other nodes that were waiting for the create have queued too: they go in the same write.
    queueMicrotask(() => this.#writeRecord());
    if (!(await written.promise)) await this.#create(node, true);
  }

  /**
   * Adds every node waiting to buildx's record in one direct write (synchronous, so writes never overlap);
   * each is told false when the record is not ours to write (then never again: `create --append` instead).
   */
  #writeRecord(): void {
    const o = this.#opts;
    const batch = this.#toWrite;
    if (batch.length === 0) return;
    this.#toWrite = [];
    const stored = this.#stored;
    if (!stored || this.#halted) return batch.forEach(b => b.written.resolve(false));
    if (o.signal?.aborted) return batch.forEach(b => b.written.reject(new CancelledError(PHASE)));
    const added = batch.map(b => storeNode(b.node));
    const result = (o.appendNodes ?? appendNodesToStore)({
      configDir: o.buildx.configDir(),
      builder: o.builderName,
      existing: stored,
      nodes: added
    });
    if (result.appended) {
      stored.push(...added);
      for (const b of batch) o.logger.info(`Added node ${b.node.name} to buildx builder "${o.builderName}"`);
    } else {
      o.logger.debug(`BuildxSetup: ${result.why}; appending with \`buildx create --append\``);
      this.#stored = undefined;
    }
    for (const b of batch) b.written.resolve(result.appended);
  }

  async #create(node: ProvisionedNode, append: boolean): Promise<void> {
    const o = this.#opts;
    if (this.#halted) return;
    if (o.signal?.aborted) throw new CancelledError(PHASE);
    await o.buildx.createNode(
      {
        name: o.builderName,
        node: node.name,
        endpoint: node.endpoint,
        certs: node.certs,
        platforms: node.platforms,
        append,
        use: o.use
      },
      {signal: o.signal, timeoutMs: this.#timeLeft()}
    );
    if (!append) o.onCreated();
  }

  #timeLeft(): number {
    return Math.max(1000, this.#opts.deadline - this.#opts.clock.now());
  }
}

function storeNode(n: ProvisionedNode): StoreNode {
  return {name: n.name, endpoint: n.endpoint, platforms: n.platforms, certs: n.certs};
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(e: unknown): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return {promise, resolve, reject};
}
