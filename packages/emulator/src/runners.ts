import {randomBytes} from 'node:crypto';
import {ApiProblem} from './api-problem.js';
import {BodyFields} from './body-fields.js';
import type {EmulatorClock} from './clock.js';
import type {RunnerImageStore} from './runner-images.js';
import type {StackCatalog} from './stacks.js';

/** Runner names: lowercase letters and hyphens only (spec §2.3, §8). */
export const RUNNER_NAME = /^[a-z-]+$/;
/** `organization_id` and `vcs_integration_id` of every runner (the emulator has one organisation). */
export const EMULATOR_ORGANIZATION_ID = 'org_emulator';
export const EMULATOR_VCS_INTEGRATION_ID = 'vcs_emulator';

/** StockRunnerConfig seeds one of the service's own runners (`stock_runner_id` set; not changeable). */
export interface StockRunnerConfig {
  /** Lowercase letters and hyphens, e.g. `ubuntu-large`. */
  name: string;
  /** Defaults to `stock_` + the name. */
  stockRunnerId?: string;
}

export interface RunnerStorageRecord {
  tier: string;
  size: number;
  throughput: number;
  iops: number;
  disk_type: string;
  performance_tier: string;
}

export interface RunnerByocSkuRecord {
  instance_types: string[];
  is_public: boolean;
  arch: string;
  role_arn: string;
  network_tier: string;
}

/** The runner record of spec §2.3, in its field order. */
export interface RunnerRecord {
  id: string;
  created_at: string;
  updated_at: string;
  name: string;
  vcs_integration_id: string;
  organization_id: string;
  provider_id: string;
  stock_runner_id: string | null;
  labels: string[];
  active: boolean;
  pool_size: number;
  meta: {supports_snapshot: boolean};
  configuration: {
    image: string;
    capacity_type: string;
    sku: string;
    storage: RunnerStorageRecord;
    byoc_sku: RunnerByocSkuRecord;
  };
}

/** Storage of a runner created without one (the emulator's choice; spec §2.3 gives only tier `custom`). */
export const DEFAULT_STORAGE: Readonly<RunnerStorageRecord> = Object.freeze({
  tier: 'custom',
  size: 100,
  throughput: 125,
  iops: 3000,
  disk_type: '',
  performance_tier: ''
});
/** Pool size of a runner created without one (spec: "not shown"; the emulator's choice). */
export const DEFAULT_POOL_SIZE = 1;

const NOT_UPDATABLE = 'cannot be updated (spec §4.3: the PATCH body has pool_size, labels and configuration)';

export interface RunnerStoreOpts {
  clock: EmulatorClock;
  stacks: StackCatalog;
  images: RunnerImageStore;
  stockRunners?: readonly StockRunnerConfig[];
}

/**
 * RunnerStore keeps runners (spec §2.3, §4.3). Create requires name, provider_id (a known stack),
 * configuration.image (a known runner image), configuration.byoc_sku.role_arn (a string, may be empty) and
 * a non-empty configuration.byoc_sku.instance_types; names are unique (409, the emulator's choice). Update
 * refuses role_arn, name and provider_id. Stock runners are listed and readable but cannot be changed (403).
 */
export class RunnerStore {
  readonly #opts: RunnerStoreOpts;
  readonly #runners = new Map<string, RunnerRecord>();

  constructor(opts: RunnerStoreOpts) {
    this.#opts = opts;
    const provider = opts.stacks.list()[0]?.id ?? '';
    for (const s of opts.stockRunners ?? []) {
      if (typeof s?.name !== 'string' || !RUNNER_NAME.test(s.name)) {
        throw new Error(
          `Invalid stock runner ${JSON.stringify(s?.name)}: the name must be lowercase letters and hyphens`
        );
      }
      if (this.#byName(s.name)) throw new Error(`Duplicate stock runner ${JSON.stringify(s.name)}`);
      const now = this.#now();
      const runner = this.#record({
        name: s.name,
        provider,
        stock: s.stockRunnerId ?? `stock_${s.name}`,
        now,
        image: '',
        byocSku: {instance_types: [], is_public: true, arch: 'x64', role_arn: '', network_tier: 'STANDARD'}
      });
      this.#runners.set(runner.id, runner);
    }
  }

  /** Runners in creation order, optionally only custom ones and only those of one image (copies). */
  list(filter: {onlyCustom?: boolean; image?: string} = {}): RunnerRecord[] {
    return [...this.#runners.values()]
      .filter(r => !filter.onlyCustom || r.stock_runner_id === null)
      .filter(r => filter.image === undefined || r.configuration.image === filter.image)
      .map(copy);
  }

  /** One runner; 404 when unknown. */
  get(id: string): RunnerRecord {
    return copy(this.#find(id));
  }

  /** Creates a custom runner from a POST body. */
  create(body: unknown): RunnerRecord {
    const f = BodyFields.of(body);
    const name = f.string('name', {required: true}) as string;
    if (!RUNNER_NAME.test(name)) throw ApiProblem.invalid('name', 'must be lowercase letters and hyphens only');
    const provider = f.string('provider_id', {required: true, nonEmpty: true}) as string;
    if (!this.#opts.stacks.byId(provider)) {
      throw ApiProblem.invalid('provider_id', `names no stack (${JSON.stringify(provider)}): see GET /api/v1/stacks`);
    }
    const poolSize = f.integer('pool_size') ?? DEFAULT_POOL_SIZE;
    const labels = f.strings('labels') ?? [name];
    const config = f.object('configuration', true) as BodyFields;
    const image = this.#image(config.string('image', {required: true, nonEmpty: true}) as string);
    const sku = config.object('byoc_sku', true) as BodyFields;
    const roleArn = sku.string('role_arn', {required: true}) as string;
    const instanceTypes = sku.strings('instance_types', {required: true, nonEmptyList: true}) as string[];
    const storage = readStorage(config.object('storage'));
    const existing = this.#byName(name);
    if (existing) {
      throw new ApiProblem(409, 'conflict', `A runner named ${JSON.stringify(name)} exists (${existing.id})`, 'name');
    }
    const runner = this.#record({
      name,
      provider,
      stock: null,
      now: this.#now(),
      image,
      labels,
      poolSize,
      capacityType: config.string('capacity_type') ?? 'ondemand',
      sku: config.string('sku') ?? '',
      storage: {...DEFAULT_STORAGE, ...storage},
      byocSku: {
        instance_types: instanceTypes,
        is_public: sku.boolean('is_public') ?? false,
        arch: sku.string('arch') ?? this.#opts.images.get(image)?.arch ?? 'x64',
        role_arn: roleArn,
        network_tier: sku.string('network_tier') ?? 'STANDARD'
      }
    });
    this.#runners.set(runner.id, runner);
    return copy(runner);
  }

  /** Applies a PATCH body; nested objects merge field by field. */
  update(id: string, body: unknown): RunnerRecord {
    const runner = this.#custom(id);
    const f = BodyFields.of(body);
    f.forbid('role_arn', NOT_UPDATABLE);
    f.forbid('name', NOT_UPDATABLE);
    f.forbid('provider_id', NOT_UPDATABLE);
    const poolSize = f.integer('pool_size');
    const labels = f.strings('labels');
    const config = f.object('configuration');
    const image = config?.has('image')
      ? this.#image(config.string('image', {nonEmpty: true}) as string, 'configuration.image')
      : undefined;
    const capacityType = config?.string('capacity_type');
    const skuName = config?.string('sku');
    const storage = readStorage(config?.object('storage'));
    const sku = config?.object('byoc_sku');
    sku?.forbid('role_arn', NOT_UPDATABLE);
    const instanceTypes = sku?.strings('instance_types', {nonEmptyList: true});
    const isPublic = sku?.boolean('is_public');
    const arch = sku?.string('arch');
    const networkTier = sku?.string('network_tier');

    if (poolSize !== undefined) runner.pool_size = poolSize;
    if (labels !== undefined) runner.labels = labels;
    const c = runner.configuration;
    if (image !== undefined) c.image = image;
    if (capacityType !== undefined) c.capacity_type = capacityType;
    if (skuName !== undefined) c.sku = skuName;
    Object.assign(c.storage, storage);
    if (instanceTypes !== undefined) c.byoc_sku.instance_types = instanceTypes;
    if (isPublic !== undefined) c.byoc_sku.is_public = isPublic;
    if (arch !== undefined) c.byoc_sku.arch = arch;
    if (networkTier !== undefined) c.byoc_sku.network_tier = networkTier;
    runner.updated_at = this.#now();
    return copy(runner);
  }

  /** Removes a custom runner (spec §3: irreversible) and returns its last record. */
  delete(id: string): RunnerRecord {
    const runner = this.#custom(id);
    this.#runners.delete(id);
    return copy(runner);
  }

  #find(id: string): RunnerRecord {
    const runner = this.#runners.get(id);
    if (!runner) throw new ApiProblem(404, 'runner_not_found', `No runner ${JSON.stringify(id)}`);
    return runner;
  }

  #custom(id: string): RunnerRecord {
    const runner = this.#find(id);
    if (runner.stock_runner_id !== null) {
      throw new ApiProblem(403, 'stock_runner', `Runner ${JSON.stringify(id)} is a stock runner and cannot be changed`);
    }
    return runner;
  }

  #image(id: string, field = 'configuration.image'): string {
    if (!this.#opts.images.get(id)) {
      throw ApiProblem.invalid(field, `names no runner image (${JSON.stringify(id)}): see GET /api/v1/runner-images`);
    }
    return id;
  }

  #byName(name: string): RunnerRecord | undefined {
    return [...this.#runners.values()].find(r => r.name === name);
  }

  #record(p: {
    name: string;
    provider: string;
    stock: string | null;
    now: string;
    image: string;
    labels?: string[];
    poolSize?: number;
    capacityType?: string;
    sku?: string;
    storage?: RunnerStorageRecord;
    byocSku: RunnerByocSkuRecord;
  }): RunnerRecord {
    return {
      id: `rnr_${randomBytes(8).toString('hex')}`,
      created_at: p.now,
      updated_at: p.now,
      name: p.name,
      vcs_integration_id: EMULATOR_VCS_INTEGRATION_ID,
      organization_id: EMULATOR_ORGANIZATION_ID,
      provider_id: p.provider,
      stock_runner_id: p.stock,
      labels: p.labels ?? [p.name],
      active: true,
      pool_size: p.poolSize ?? DEFAULT_POOL_SIZE,
      meta: {supports_snapshot: false},
      configuration: {
        image: p.image,
        capacity_type: p.capacityType ?? 'ondemand',
        sku: p.sku ?? '',
        storage: p.storage ?? {...DEFAULT_STORAGE},
        byoc_sku: p.byocSku
      }
    };
  }

  #now(): string {
    return new Date(this.#opts.clock.now()).toISOString();
  }
}

function readStorage(s: BodyFields | undefined): Partial<RunnerStorageRecord> {
  if (!s) return {};
  const out: Partial<RunnerStorageRecord> = {};
  for (const k of ['tier', 'disk_type', 'performance_tier'] as const) {
    const v = s.string(k);
    if (v !== undefined) out[k] = v;
  }
  for (const k of ['size', 'throughput', 'iops'] as const) {
    const v = s.number(k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function copy(r: RunnerRecord): RunnerRecord {
  return {
    ...r,
    labels: [...r.labels],
    meta: {...r.meta},
    configuration: {
      ...r.configuration,
      storage: {...r.configuration.storage},
      byoc_sku: {...r.configuration.byoc_sku, instance_types: [...r.configuration.byoc_sku.instance_types]}
    }
  };
}
