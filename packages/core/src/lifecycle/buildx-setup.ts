import {writeBuilderCerts} from '../certs/cert-store.js';
import type {Clock} from '../clock.js';
import {parseBuilderInspect, type InspectedBuilder} from '../docker/builder-inspect.js';
import type {BuildkitInfo, BuildkitInfoCall} from './buildkit-info.js';
import {CancelledError} from './cancelled-error.js';
import {BuildxRecord, type BuildxRecordOpts, type ProvisionedNode} from './buildx-record.js';
import type {ReadyBuilder} from './readiness.js';

export type {ProvisionedNode} from './buildx-record.js';

export interface BuildxSetupOpts extends Omit<BuildxRecordOpts, 'halted' | 'timeLeft'> {
  clock: Clock;
  /** false: only the certificates are written. */
  setupBuildx: boolean;
  /** Epoch ms (on `clock`) by which every buildx call must end. */
  deadline: number;
  /**
   * Asks a builder's BuildKit for its version (when added, and once ready if it did not answer); when every
   * node answers, `buildx inspect --bootstrap` is not run. None: always bootstrap.
   */
  buildkitInfo?: BuildkitInfoCall;
}

const PHASE = 'while setting up the buildx builder';
const NOT_ASKED: Promise<BuildkitInfo> = Promise.resolve({why: 'its BuildKit was not asked'});
/** Time limit of one Control/Info call: an answer is a round trip; without one, the bootstrap decides. */
const INFO_TIMEOUT_MS = 5000;

/**
 * BuildxSetup makes each builder a buildx node the moment its details are complete (add), while readiness
 * still checks its TLS, not once all are ready: its certificates are written at once, then its node is added
 * to buildx's record (BuildxRecord: created by the first, joined by the others; prepare() creates it before
 * any builder is ready, when it can, so that the first node's create is off the critical path). Its BuildKit is
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
  readonly #record: BuildxRecord;
  readonly #failed = new AbortController();
  #halted = false;
  /** Whether any builder was added (inspect() needs one). */
  #added = false;

  constructor(opts: BuildxSetupOpts) {
    this.#opts = opts;
    this.#record = new BuildxRecord({...opts, halted: () => this.#halted, timeLeft: () => this.#timeLeft()});
  }

  /** Aborts with the first failure of the setup. */
  get failed(): AbortSignal {
    return this.#failed.signal;
  }

  /**
   * Creates the buildx builder before any builder is ready (BuildxRecord.prepare). Its failure is no failure
   * of the setup: the first node then creates the builder. halt() and nodes() wait for it.
   */
  prepare(): void {
    if (!this.#opts.setupBuildx || this.#halted) return;
    const made = this.#record.prepare();
    if (made) this.#work.push(made);
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
    this.#added = true;
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
      if (o.setupBuildx) await this.#record.add(node);
      this.#nodes[index] = node;
    })();
    this.#track(work);
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
    if (!this.#added) throw new Error('no builder to set up');
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

  /** Keeps `work` for nodes() and halt(); its failure ends the setup. */
  #track(work: Promise<void>): void {
    this.#work.push(
      work.catch((e: unknown) => {
        this.#halted = true;
        if (!this.#failed.signal.aborted) this.#failed.abort(e);
      })
    );
  }

  #timeLeft(): number {
    return Math.max(1000, this.#opts.deadline - this.#opts.clock.now());
  }
}
