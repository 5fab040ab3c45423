import type {Buildx} from '../buildx/buildx.js';
import type {NodeCertPaths} from '../buildx/buildx-args.js';
import {writeBuilderCerts} from '../certs/cert-store.js';
import type {Clock} from '../clock.js';
import type {Logger} from '../logger.js';
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
}

const PHASE = 'while setting up the buildx builder';

/**
 * BuildxSetup makes each ready builder a buildx node the moment it is ready, not once all are: its
 * certificates are written at once, then its node is added: the first builder ready creates the buildx
 * builder, the others `--append` to it once it exists. Node names follow the builders' order in the
 * assignment; the order of the nodes in buildx is the order in which they became ready. The first failure
 * ends the setup: `failed` aborts with it and no further buildx call starts.
 */
export class BuildxSetup {
  readonly #opts: BuildxSetupOpts;
  readonly #nodes: ProvisionedNode[] = [];
  readonly #work: Promise<void>[] = [];
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
   * and rejects nodes().
   */
  add(ready: ReadyBuilder, index: number): void {
    if (this.#halted) return;
    const o = this.#opts;
    const name = o.nodeNames[index] ?? `node-${index}`;
    const creator = !this.#creatorChosen;
    this.#creatorChosen = true;
    const work = (async () => {
      const certs = await writeBuilderCerts(o.certDir, name, ready.pems);
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

  /** Boots every node (`buildx inspect --bootstrap`) and returns the inspect output. */
  async bootstrap(): Promise<string> {
    const o = this.#opts;
    if (!this.#creatorChosen) throw new Error('no builder to set up');
    if (o.signal?.aborted) throw new CancelledError(PHASE);
    const output = await o.buildx.bootstrap(o.builderName, {signal: o.signal, timeoutMs: this.#timeLeft()});
    if (o.signal?.aborted) throw new CancelledError('while booting the buildx builder');
    return output;
  }

  /**
   * The first builder ready creates the builder; every other one waits for that, then appends (buildx runs
   * `create` under its store's file lock, so appends to one builder may be started together: each reads the
   * store as the one before left it).
   */
  async #addNode(node: ProvisionedNode, creator: boolean): Promise<void> {
    if (creator) {
      try {
        await this.#create(node, false);
        this.#created.resolve();
      } catch (e) {
        this.#created.reject(e);
        throw e;
      }
      return;
    }
    await this.#created.promise;
    await this.#create(node, true);
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

function deferred(): {promise: Promise<void>; resolve(): void; reject(e: unknown): void} {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return {promise, resolve, reject};
}
