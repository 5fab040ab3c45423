import {existsSync} from 'node:fs';
import type {NodeCertPaths} from '../buildx/buildx-args.js';
import type {Buildx} from '../buildx/buildx.js';
import {appendNodesToStore, builderRecordPath, type StoreNode} from '../buildx/buildx-store.js';
import {builderCertPaths} from '../certs/cert-store.js';
import {errorMessage} from '../errors.js';
import type {Logger} from '../logger.js';
import {CancelledError} from './cancelled-error.js';
import {deferred, type Deferred} from './deferred.js';

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

export interface BuildxRecordOpts {
  buildx: Buildx;
  logger: Logger;
  /** buildx builder name. */
  builderName: string;
  /** The private folder the certificates go to. */
  certDir: string;
  /** Node names by builder index (stable whatever order the builders become ready in). */
  nodeNames: string[];
  /** Make the builder buildx's default. */
  use: boolean;
  signal?: AbortSignal;
  /** Called once the buildx builder exists (its first node created), so the state can say so at once. */
  onCreated: () => void;
  /** Writes nodes into buildx's record of the builder; default appendNodesToStore. */
  appendNodes?: typeof appendNodesToStore;
  /** True once the setup stopped: no buildx call starts after. */
  halted: () => boolean;
  /** The time limit of the next buildx call. */
  timeLeft: () => number;
}

const PHASE = 'while setting up the buildx builder';
/**
 * The endpoint of the node prepare() creates before any builder is ready: a tcp:// address buildx accepts
 * (it only tries it once, finds nothing, and calls the node inactive); replaced before any build.
 */
const PLACEHOLDER_ENDPOINT = 'tcp://127.0.0.1:1';

/**
 * BuildxRecord is buildx's record of the one builder a setup makes: the first node creates it (or takes the
 * place of prepare()'s placeholder), the others join it once it exists, by writing the record directly when
 * it holds exactly what buildx wrote (buildx-store.ts: no process, where `create --append` costs one each
 * under buildx's store lock), else with `create --append`. Nodes are in buildx in the order they were added.
 */
export class BuildxRecord {
  readonly #opts: BuildxRecordOpts;
  /** The nodes in buildx's record, in its order, while the record is written directly; undefined once not. */
  #stored: StoreNode[] | undefined = [];
  /** Nodes waiting for the next direct write of the record, each told whether it was written. */
  #toWrite: {node: ProvisionedNode; written: Deferred<boolean>}[] = [];
  /** Settles with the first node's `buildx create` (or with the node replacing prepare()'s placeholder). */
  readonly #created = deferred();
  #creatorChosen = false;
  /** prepare()'s builder with its placeholder node (made: whether it exists), until the first node replaces it. */
  #prepared: {node: ProvisionedNode; made: Promise<boolean>} | undefined;

  constructor(opts: BuildxRecordOpts) {
    this.#opts = opts;
    this.#created.promise.catch(() => undefined);
  }

  /**
   * Creates the builder before any node is known, with a placeholder node that the first node added replaces
   * in one direct write (no process left for after its details): only while buildx keeps a store (its
   * `instances` folder) we may write; else the builder is removed and created anew for that node. Never
   * rejects: when this create fails, the first node creates the builder as without it (undefined: nothing
   * started, e.g. a node was added already).
   */
  prepare(): Promise<void> | undefined {
    const o = this.#opts;
    if (this.#creatorChosen) return undefined;
    this.#creatorChosen = true;
    const name = o.nodeNames[0] ?? 'node-0';
    const node = {
      name,
      builderId: '',
      endpoint: PLACEHOLDER_ENDPOINT,
      platforms: [],
      certs: builderCertPaths(o.certDir, name)
    };
    const made = this.#create(node, false).then(
      () => true,
      (e: unknown) => this.#madeAnyway(e)
    );
    this.#prepared = {node, made};
    return made.then(() => undefined);
  }

  /**
   * prepare()'s create failed or was stopped: whether buildx holds the builder all the same (a create killed
   * after its write, or whose `--use` failed), told to onCreated so that the teardown removes it.
   */
  #madeAnyway(e: unknown): boolean {
    const o = this.#opts;
    const kept = existsSync(builderRecordPath(o.buildx.configDir(), o.builderName));
    const next = kept ? 'its record is there: the first node takes its place' : 'the first node creates it';
    o.logger.debug(`BuildxRecord: creating the builder before any was ready failed (${errorMessage(e)}); ${next}`);
    if (!kept) return false;
    try {
      o.onCreated();
    } catch (saveError) {
      // The state in memory says so already; its next save reports a state that cannot be written.
      o.logger.debug(`BuildxRecord: ${errorMessage(saveError)}`);
    }
    return true;
  }

  /** Adds `node`: decides synchronously whether it creates the builder, replaces the placeholder or joins. */
  add(node: ProvisionedNode): Promise<void> {
    const prepared = this.#prepared;
    this.#prepared = undefined;
    if (prepared) return this.#replace(prepared, node);
    const creator = !this.#creatorChosen;
    this.#creatorChosen = true;
    return this.#addNode(node, creator);
  }

  /**
   * The first builder added takes the place of prepare()'s placeholder node, in one direct write of the
   * record; when that record is not ours to write after all, the builder is removed and created anew; when
   * prepare() made none, this node creates it.
   */
  async #replace(prepared: {node: ProvisionedNode; made: Promise<boolean>}, node: ProvisionedNode): Promise<void> {
    const o = this.#opts;
    if (!(await prepared.made)) return this.#addNode(node, true);
    try {
      if (this.#opts.halted()) return;
      if (o.signal?.aborted) throw new CancelledError(PHASE);
      const result = (o.appendNodes ?? appendNodesToStore)({
        configDir: o.buildx.configDir(),
        builder: o.builderName,
        existing: [storeNode(prepared.node)],
        nodes: [storeNode(node)],
        replace: true
      });
      if (result.appended) {
        this.#stored = [storeNode(node)];
        o.logger.info(`Set node ${node.name} of buildx builder "${o.builderName}" to ${node.endpoint}`);
      } else {
        o.logger.debug(`BuildxRecord: ${result.why}; creating the builder anew`);
        this.#stored = undefined;
        await o.buildx.rm(o.builderName, {signal: o.signal, timeoutMs: this.#opts.timeLeft()});
        await this.#create(node, false);
      }
      this.#created.resolve();
    } catch (e) {
      this.#created.reject(e);
      throw e;
    }
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
    if (!stored || this.#opts.halted()) return batch.forEach(b => b.written.resolve(false));
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
      o.logger.debug(`BuildxRecord: ${result.why}; appending with \`buildx create --append\``);
      this.#stored = undefined;
    }
    for (const b of batch) b.written.resolve(result.appended);
  }

  async #create(node: ProvisionedNode, append: boolean): Promise<void> {
    const o = this.#opts;
    if (this.#opts.halted()) return;
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
      {signal: o.signal, timeoutMs: this.#opts.timeLeft()}
    );
    if (!append) o.onCreated();
  }
}

function storeNode(n: ProvisionedNode): StoreNode {
  return {name: n.name, endpoint: n.endpoint, platforms: n.platforms, certs: n.certs};
}
