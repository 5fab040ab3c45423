import {InputError} from '../errors.js';

/** Runner names: lowercase letters and hyphens only (spec §2.3, §8). */
export const RUNNER_NAME_PATTERN = /^[a-z-]+$/;

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Field checks that throw an InputError naming the field (a dotted path into the request body). */
class Fields {
  constructor(
    private readonly obj: JsonObject,
    private readonly prefix: string
  ) {}

  static of(value: unknown, what: string): Fields {
    if (!isObject(value)) throw new InputError(what, 'must be an object');
    return new Fields(value, '');
  }

  path(key: string): string {
    return this.prefix + key;
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined;
  }

  /** A nested object; undefined when absent and not required. */
  object(key: string, required = false): Fields | undefined {
    const v = this.obj[key];
    if (v === undefined) {
      if (required) throw new InputError(this.path(key), 'is required');
      return undefined;
    }
    if (!isObject(v)) throw new InputError(this.path(key), 'must be an object');
    return new Fields(v, `${this.path(key)}.`);
  }

  string(key: string, opts: {required?: boolean; nonEmpty?: boolean; hint?: string} = {}): string | undefined {
    const v = this.obj[key];
    if (v === undefined) {
      if (opts.required) throw new InputError(this.path(key), `is required${opts.hint ? `: ${opts.hint}` : ''}`);
      return undefined;
    }
    if (typeof v !== 'string') throw new InputError(this.path(key), 'must be a string');
    if (opts.nonEmpty && v.trim() === '') {
      throw new InputError(this.path(key), `must not be empty${opts.hint ? `: ${opts.hint}` : ''}`);
    }
    return v;
  }

  boolean(key: string): void {
    const v = this.obj[key];
    if (v !== undefined && typeof v !== 'boolean') throw new InputError(this.path(key), 'must be true or false');
  }

  integer(key: string): void {
    const v = this.obj[key];
    if (v !== undefined && !(Number.isSafeInteger(v) && (v as number) >= 0)) {
      throw new InputError(this.path(key), `must be a whole number >= 0, got ${JSON.stringify(v)}`);
    }
  }

  number(key: string): void {
    const v = this.obj[key];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= 0)) {
      throw new InputError(this.path(key), `must be a number >= 0, got ${JSON.stringify(v)}`);
    }
  }

  /** An array of non-empty strings; `nonEmptyList` also refuses []. */
  strings(key: string, opts: {required?: boolean; nonEmptyList?: boolean; hint?: string} = {}): void {
    const v = this.obj[key];
    const hint = opts.hint ? `: ${opts.hint}` : '';
    if (v === undefined) {
      if (opts.required) throw new InputError(this.path(key), `is required${hint}`);
      return;
    }
    if (!Array.isArray(v)) throw new InputError(this.path(key), `must be a list of strings${hint}`);
    if (opts.nonEmptyList && v.length === 0) throw new InputError(this.path(key), `must not be empty${hint}`);
    for (const [i, item] of v.entries()) {
      if (typeof item !== 'string' || item.trim() === '') {
        throw new InputError(`${this.path(key)}[${i}]`, `must be a non-empty string${hint}`);
      }
    }
  }

  forbid(key: string, why: string): void {
    if (this.has(key)) throw new InputError(this.path(key), why);
  }
}

const INSTANCE_TYPES_HINT = 'list machine type names, e.g. ["m5.large"]';
const ROLE_ARN_FIXED = 'cannot be changed by an update (spec §4.3: the PATCH body has no role_arn)';

/** Throws an InputError unless `name` is a valid runner name. */
export function validateRunnerName(name: unknown, field = 'name'): void {
  if (typeof name !== 'string' || name === '') {
    throw new InputError(field, 'is required: lowercase letters and hyphens only, e.g. "linux-builders"');
  }
  if (!RUNNER_NAME_PATTERN.test(name)) {
    throw new InputError(
      field,
      `"${name.slice(0, 60)}" is not a runner name: use lowercase letters and hyphens only, e.g. "linux-builders"`
    );
  }
}

function checkStorage(storage: Fields | undefined): void {
  if (!storage) return;
  for (const k of ['tier', 'disk_type', 'performance_tier']) storage.string(k);
  for (const k of ['size', 'throughput', 'iops']) storage.number(k);
}

/** Checks the parts of `configuration` shared by create and update. */
function checkConfiguration(config: Fields, create: boolean): void {
  config.string('image', {required: create, nonEmpty: true, hint: 'the id of a runner image'});
  config.string('capacity_type');
  config.string('sku');
  checkStorage(config.object('storage'));
  const sku = config.object('byoc_sku', create);
  if (!sku) return;
  if (create) sku.string('role_arn', {required: true, hint: 'the instance role of the runner (may be "")'});
  else sku.forbid('role_arn', ROLE_ARN_FIXED);
  sku.strings('instance_types', {required: create, nonEmptyList: true, hint: INSTANCE_TYPES_HINT});
  sku.boolean('is_public');
  sku.string('arch');
  sku.string('network_tier');
}

/**
 * Validates a POST /runners body before it is sent: `name` (lowercase letters and hyphens), `provider_id`,
 * `configuration.image`, `configuration.byoc_sku.role_arn` (a string, may be empty) and a non-empty
 * `configuration.byoc_sku.instance_types` are required (spec §4.3); every other named field is type-checked.
 */
export function validateCreateRunner(req: unknown): void {
  const body = Fields.of(req, 'runner');
  validateRunnerName((req as JsonObject).name);
  body.string('provider_id', {required: true, nonEmpty: true, hint: 'the id of a stack (see the stacks listing)'});
  body.integer('pool_size');
  body.strings('labels');
  checkConfiguration(body.object('configuration', true) as Fields, true);
}

/**
 * Validates a PATCH /runners/{id} body: only pool_size, labels and configuration are updatable; `role_arn`
 * is refused wherever it appears, as are `name` and `provider_id`.
 */
export function validateUpdateRunner(req: unknown): void {
  const body = Fields.of(req, 'runner update');
  body.forbid('role_arn', ROLE_ARN_FIXED);
  body.forbid('name', 'cannot be changed by an update (not a field of the PATCH body, spec §4.3)');
  body.forbid('provider_id', 'cannot be changed by an update (not a field of the PATCH body, spec §4.3)');
  body.integer('pool_size');
  body.strings('labels');
  const config = body.object('configuration');
  if (config) checkConfiguration(config, false);
}

function checkImageParts(body: Fields): void {
  const settings = body.object('settings');
  settings?.integer('purge_image_versions_offset');
  const ami = body.object('byoc_ami');
  ami?.string('ami_id');
  ami?.string('root_device_name');
}

/** Validates a POST /runner-images body: every named field is type-checked; `alias` must not be empty. */
export function validateCreateRunnerImage(req: unknown): void {
  const body = Fields.of(req, 'runner image');
  body.string('alias', {nonEmpty: true, hint: 'the name of the image'});
  for (const k of ['os', 'arch', 'type']) body.string(k);
  body.string('stack_id', {nonEmpty: true, hint: 'the id of a stack (see the stacks listing)'});
  const service = body.object('service_image');
  service?.string('image_uri');
  service?.string('cloud_init_template');
  checkImageParts(body);
}

/** Validates a PUT /runner-images/{id} body; an `id` in the body must be the image id of the call. */
export function validateUpdateRunnerImage(imageId: string, req: unknown): void {
  const body = Fields.of(req, 'runner image update');
  const id = body.string('id');
  if (id !== undefined && id !== imageId) {
    throw new InputError('id', `"${id}" does not match the image id of the call ("${imageId}")`);
  }
  checkImageParts(body);
}

/** Throws an InputError unless `value` is a whole number >= 1 (page, per_page). */
export function validatePositiveInteger(value: number | undefined, field: string): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
    throw new InputError(field, `must be a whole number >= 1, got ${value}`);
  }
}
