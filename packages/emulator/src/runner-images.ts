import {randomBytes} from 'node:crypto';
import {ApiProblem} from './api-problem.js';
import {BodyFields} from './body-fields.js';
import type {EmulatorClock} from './clock.js';
import type {StackCatalog} from './stacks.js';

/**
 * A runner image as the emulator stores and returns it. Spec §2.2 shows the request fields and "not shown"
 * for the record beyond its id; the emulator's choice is the request fields with defaults filled in, plus
 * ISO 8601 timestamps.
 */
export interface RunnerImageRecord {
  id: string;
  alias: string;
  os: string;
  arch: string;
  stack_id: string;
  type: string;
  service_image: {image_uri: string; cloud_init_template: string};
  settings: {purge_image_versions_offset: number};
  byoc_ami: {ami_id: string; root_device_name: string};
  created_at: string;
  updated_at: string;
}

/** One page of the runner-image listing: the emulator's choice of shape (spec §4.2: "not shown"). */
export interface RunnerImagePageBody {
  runner_images: RunnerImageRecord[];
  page: number;
  per_page: number;
  total: number;
}

/** Query of the listing, already parsed. */
export interface RunnerImageQuery {
  alias?: string;
  type?: string;
  page: number;
  perPage: number;
}

/** Default and largest `per_page` of the listing (spec §8: maximum not shown; the emulator's choice). */
export const DEFAULT_IMAGES_PER_PAGE = 20;
export const MAX_IMAGES_PER_PAGE = 100;

/** Fields a PUT may carry (spec §2.2). */
const UPDATE_FIELDS = new Set(['id', 'settings', 'byoc_ami']);

export interface RunnerImageStoreOpts {
  clock: EmulatorClock;
  stacks: StackCatalog;
}

/**
 * RunnerImageStore keeps the runner images created through the API. The emulator's rules where the spec shows
 * none: `alias`, `stack_id` (a known stack) and `type` are required; `byoc_ami.ami_id` too when the type is
 * `byoc_ami`; an alias is unique within a stack (409); os and arch default to `linux` and `x64`.
 */
export class RunnerImageStore {
  readonly #opts: RunnerImageStoreOpts;
  readonly #images = new Map<string, RunnerImageRecord>();

  constructor(opts: RunnerImageStoreOpts) {
    this.#opts = opts;
  }

  /** Every image, in creation order (copies). */
  all(): RunnerImageRecord[] {
    return [...this.#images.values()].map(copy);
  }

  get(id: string): RunnerImageRecord | undefined {
    const image = this.#images.get(id);
    return image ? copy(image) : undefined;
  }

  /**
   * One page, filtered by alias (a case-insensitive substring search: spec §2.2 calls it a search filter) and
   * type (exact); `perPage` is clamped to 1…MAX_IMAGES_PER_PAGE.
   */
  list(q: RunnerImageQuery): RunnerImagePageBody {
    const alias = q.alias?.toLowerCase();
    const matching = [...this.#images.values()].filter(
      i => (alias === undefined || i.alias.toLowerCase().includes(alias)) && (q.type === undefined || i.type === q.type)
    );
    const size = Math.min(Math.max(1, q.perPage), MAX_IMAGES_PER_PAGE);
    const start = (Math.max(1, q.page) - 1) * size;
    return {
      runner_images: matching.slice(start, start + size).map(copy),
      page: Math.max(1, q.page),
      per_page: size,
      total: matching.length
    };
  }

  /** Creates an image from a POST body; throws an ApiProblem naming the field on bad input. */
  create(body: unknown): RunnerImageRecord {
    const f = BodyFields.of(body);
    const alias = f.string('alias', {required: true, nonEmpty: true}) as string;
    const stackId = f.string('stack_id', {required: true, nonEmpty: true}) as string;
    if (!this.#opts.stacks.byId(stackId)) {
      throw ApiProblem.invalid('stack_id', `names no stack (${JSON.stringify(stackId)}): see GET /api/v1/stacks`);
    }
    const type = f.string('type', {required: true, nonEmpty: true}) as string;
    const os = f.string('os') ?? 'linux';
    const arch = f.string('arch') ?? 'x64';
    const service = f.object('service_image');
    const settings = f.object('settings');
    const ami = f.object('byoc_ami', type === 'byoc_ami');
    const amiId = ami?.string('ami_id', {required: type === 'byoc_ami', nonEmpty: type === 'byoc_ami'}) ?? '';
    const record: RunnerImageRecord = {
      id: `img_${randomBytes(8).toString('hex')}`,
      alias,
      os,
      arch,
      stack_id: stackId,
      type,
      service_image: {
        image_uri: service?.string('image_uri') ?? '',
        cloud_init_template: service?.string('cloud_init_template') ?? ''
      },
      settings: {purge_image_versions_offset: settings?.integer('purge_image_versions_offset') ?? 0},
      byoc_ami: {ami_id: amiId, root_device_name: ami?.string('root_device_name') ?? ''},
      created_at: '',
      updated_at: ''
    };
    for (const other of this.#images.values()) {
      if (other.alias === alias && other.stack_id === stackId) {
        throw new ApiProblem(
          409,
          'conflict',
          `A runner image with alias ${JSON.stringify(alias)} already exists in stack ${stackId} (${other.id})`,
          'alias'
        );
      }
    }
    record.created_at = record.updated_at = this.#now();
    this.#images.set(record.id, record);
    return copy(record);
  }

  /** Applies a PUT body (id, settings, byoc_ami; nested fields merge); 404 for an unknown id. */
  update(id: string, body: unknown): RunnerImageRecord {
    const image = this.#images.get(id);
    if (!image) throw new ApiProblem(404, 'runner_image_not_found', `No runner image ${JSON.stringify(id)}`);
    const f = BodyFields.of(body);
    for (const key of Object.keys(f.raw)) {
      if (!UPDATE_FIELDS.has(key)) throw ApiProblem.invalid(key, 'cannot be updated: send id, settings and byoc_ami');
    }
    const bodyId = f.string('id');
    if (bodyId !== undefined && bodyId !== id) {
      throw ApiProblem.invalid('id', `does not match the image id of the path (${JSON.stringify(id)})`);
    }
    const settings = f.object('settings');
    const ami = f.object('byoc_ami');
    const offset = settings?.integer('purge_image_versions_offset');
    const amiId = ami?.string('ami_id', {nonEmpty: image.type === 'byoc_ami'});
    const device = ami?.string('root_device_name');
    if (offset !== undefined) image.settings.purge_image_versions_offset = offset;
    if (amiId !== undefined) image.byoc_ami.ami_id = amiId;
    if (device !== undefined) image.byoc_ami.root_device_name = device;
    image.updated_at = this.#now();
    return copy(image);
  }

  #now(): string {
    return new Date(this.#opts.clock.now()).toISOString();
  }
}

function copy(i: RunnerImageRecord): RunnerImageRecord {
  return {
    ...i,
    service_image: {...i.service_image},
    settings: {...i.settings},
    byoc_ami: {...i.byoc_ami}
  };
}
