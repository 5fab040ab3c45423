import {createHash} from 'node:crypto';

/** StackConfig seeds one stack (spec §2.1: a provider environment, listed by kind). */
export interface StackConfig {
  kind: string;
  /** Defaults to `stk_` + 16 hex digits derived from kind and name (stable across restarts). */
  id?: string;
  /** Defaults to the kind. */
  name?: string;
  /** Optional; shown in the listing when set. */
  region?: string;
}

/** A stack as listed. Spec §2.1 shows only the id; kind, name and region are the emulator's choice. */
export interface StackRecord {
  id: string;
  kind: string;
  name: string;
  region?: string;
}

/** The stacks of an emulator started without `stacks`: one `ec2` stack. */
export const DEFAULT_STACKS: readonly StackConfig[] = [{id: 'stk_ec2_default', kind: 'ec2', name: 'default'}];

/** The generated id of a stack without one. */
export function defaultStackId(kind: string, name: string): string {
  return `stk_${createHash('sha256').update(`${kind}\n${name}`).digest('hex').slice(0, 16)}`;
}

/** Fills in the defaults of one stack and validates it; throws a descriptive Error. */
export function resolveStack(config: StackConfig): StackRecord {
  if (typeof config !== 'object' || config === null) throw new Error('Invalid stack: expected an object');
  if (typeof config.kind !== 'string' || config.kind.trim() === '') {
    throw new Error('Invalid stack: "kind" must be a non-empty string');
  }
  const name = config.name ?? config.kind;
  if (typeof name !== 'string' || name.trim() === '')
    throw new Error('Invalid stack: "name" must be a non-empty string');
  if (config.id !== undefined && (typeof config.id !== 'string' || config.id === '' || /[/?#\s]/.test(config.id))) {
    throw new Error(
      `Invalid stack ${JSON.stringify(name)}: "id" must be a non-empty string without '/', '?', '#' or spaces`
    );
  }
  if (config.region !== undefined && typeof config.region !== 'string') {
    throw new Error(`Invalid stack ${JSON.stringify(name)}: "region" must be a string`);
  }
  const record: StackRecord = {id: config.id ?? defaultStackId(config.kind, name), kind: config.kind, name};
  if (config.region !== undefined) record.region = config.region;
  return record;
}

export interface StackCatalogOpts {
  stacks: readonly StackConfig[];
}

/** StackCatalog holds the seeded stacks; the API only lists them. */
export class StackCatalog {
  readonly #stacks: StackRecord[];

  constructor(opts: StackCatalogOpts) {
    this.#stacks = opts.stacks.map(resolveStack);
    const ids = new Set<string>();
    for (const s of this.#stacks) {
      if (ids.has(s.id)) throw new Error(`Duplicate stack id ${JSON.stringify(s.id)}`);
      ids.add(s.id);
    }
  }

  /** Every stack, or those of one kind, in configuration order (copies). */
  list(kind?: string): StackRecord[] {
    return this.#stacks.filter(s => kind === undefined || s.kind === kind).map(s => ({...s}));
  }

  byId(id: string): StackRecord | undefined {
    const s = this.#stacks.find(x => x.id === id);
    return s ? {...s} : undefined;
  }
}
