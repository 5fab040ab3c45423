import {generateBuilderPki, serverNames, type BuilderPki} from './pki.js';

/**
 * Builder PKIs made before any assignment (`Emulator.start({pkiPool})`), so that an assignment answers
 * without making certificates: ~15 ms of CPU per builder, which on a bench machine runs on the same cores as
 * the client under test (a real service makes them on its own machines). Each PKI is still used once; taken
 * in order while any is left for the builder's server names, then made on demand as without a pool. A pooled
 * PKI's certificates name "pooled N" where they would name the builder's id.
 */
export class PkiPool {
  readonly #ready = new Map<string, BuilderPki[]>();

  /** Makes `count` PKIs for each set of server names (a profile's `hostName` besides the defaults). */
  static async fill(count: number, hostNames: string[]): Promise<PkiPool> {
    if (!Number.isInteger(count) || count < 0) throw new Error(`pkiPool must be a whole number ≥ 0, got ${count}`);
    const pool = new PkiPool();
    let made = 0;
    for (const host of new Set(hostNames)) {
      const names = serverNames(host);
      const list: BuilderPki[] = [];
      // A few at a time: the work is CPU-bound, and thousands of pending promises would only cost memory.
      for (let i = 0; i < count; i += 8) {
        const batch = Array.from({length: Math.min(8, count - i)}, () =>
          generateBuilderPki({label: `pooled ${++made}`, serverNames: names})
        );
        list.push(...(await Promise.all(batch)));
      }
      pool.#ready.set(key(names), list);
    }
    return pool;
  }

  /** A PKI made for exactly these server names, once; undefined when none is left. */
  take(names: string[]): BuilderPki | undefined {
    return this.#ready.get(key(names))?.shift();
  }

  /** PKIs left, all server names together. */
  get size(): number {
    let n = 0;
    for (const list of this.#ready.values()) n += list.length;
    return n;
  }
}

function key(names: string[]): string {
  return JSON.stringify([...new Set(names)]);
}
