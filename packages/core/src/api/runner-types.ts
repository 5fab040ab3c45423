/**
 * Wire types of the runner, runner-image and stack endpoints (spec §2.1–§2.3, §4.1–§4.3).
 * Records keep the fields they do not name (the spec leaves them "not shown"); a named field whose value has
 * the wrong type is dropped by the readers, so the types below can be trusted.
 */

/** Stack is a provider environment (spec §2.1); its id is a runner's `provider_id` and an image's `stack_id`. */
export interface Stack {
  id: string;
  kind?: string;
  name?: string;
  [k: string]: unknown;
}

/** `service_image` of a runner image. */
export interface RunnerImageServiceImage {
  /** Machine-image reference. */
  image_uri?: string;
  /** May be empty. */
  cloud_init_template?: string;
}

/** `settings` of a runner image. */
export interface RunnerImageSettings {
  purge_image_versions_offset?: number;
}

/** `byoc_ami` of a runner image. */
export interface RunnerImageByocAmi {
  /** Machine-image id. */
  ami_id?: string;
  /** Device path, e.g. `/dev/sda1`. */
  root_device_name?: string;
}

/** Body of POST /api/v1/runner-images (spec §2.2). Which fields are required is not shown. */
export interface CreateRunnerImageRequest {
  alias?: string;
  /** e.g. `linux`. */
  os?: string;
  /** e.g. `x64`. */
  arch?: string;
  /** A stack id from listStacks. */
  stack_id?: string;
  /** e.g. `byoc_ami`. */
  type?: string;
  service_image?: RunnerImageServiceImage;
  settings?: RunnerImageSettings;
  byoc_ami?: RunnerImageByocAmi;
}

/** Body of PUT /api/v1/runner-images/{id} (spec §2.2); the client adds `id`. */
export interface UpdateRunnerImageRequest {
  /** When given, it must equal the image id of the call. */
  id?: string;
  settings?: RunnerImageSettings;
  byoc_ami?: RunnerImageByocAmi;
}

/** RunnerImage is a runner-image record; only `id` is specified, the rest passes through as sent. */
export interface RunnerImage {
  id: string;
  alias?: string;
  os?: string;
  arch?: string;
  stack_id?: string;
  type?: string;
  [k: string]: unknown;
}

/** Query of GET /api/v1/runner-images: one page. */
export interface ListRunnerImagesQuery {
  /** Search filter on the image name. */
  alias?: string;
  /** e.g. `byoc_ami`. */
  type?: string;
  /** 1-based page. */
  page?: number;
  perPage?: number;
}

/** One page of runner images, plus the paging fields the service sent, when it sent them. */
export interface RunnerImagePage {
  images: RunnerImage[];
  page?: number;
  perPage?: number;
  total?: number;
}

/** `configuration.storage` of a runner. The service may answer other values than those sent (spec §2.3). */
export interface RunnerStorage {
  /** e.g. `custom`. */
  tier?: string;
  size?: number;
  throughput?: number;
  iops?: number;
  /** May be empty. */
  disk_type?: string;
  /** May be empty. */
  performance_tier?: string;
}

/** `configuration.byoc_sku` of a runner. */
export interface RunnerByocSku {
  /** Machine type names; a non-empty list. */
  instance_types?: string[];
  is_public?: boolean;
  /** e.g. `x64`. */
  arch?: string;
  /** Instance role of the runner; may be empty. Set on create only. */
  role_arn?: string;
  /** e.g. `STANDARD`; may be empty. */
  network_tier?: string;
}

/** `configuration` of a runner. */
export interface RunnerConfiguration {
  /** A runner-image id. */
  image?: string;
  /** e.g. `ondemand`. */
  capacity_type?: string;
  /** May be empty. */
  sku?: string;
  storage?: RunnerStorage;
  byoc_sku?: RunnerByocSku;
}

/** Body of POST /api/v1/runners (spec §4.3): the named required fields are required here too. */
export interface CreateRunnerRequest {
  /** Lowercase letters and hyphens only. */
  name: string;
  /** A stack id from listStacks. */
  provider_id: string;
  pool_size?: number;
  /** Defaults to `[name]` on the service. Not named by the spec for create; sent when given. */
  labels?: string[];
  configuration: RunnerConfiguration & {
    image: string;
    byoc_sku: RunnerByocSku & {role_arn: string; instance_types: string[]};
  };
}

/** Body of PATCH /api/v1/runners/{id} (spec §4.3): `role_arn` cannot be changed, so it is not accepted. */
export interface UpdateRunnerRequest {
  pool_size?: number;
  labels?: string[];
  configuration?: Omit<RunnerConfiguration, 'byoc_sku'> & {byoc_sku?: Omit<RunnerByocSku, 'role_arn'>};
}

/** Runner is the record every runner endpoint answers with (spec §2.3). */
export interface Runner {
  id: string;
  /** ISO 8601 with fractional seconds and `Z`. */
  created_at?: string;
  updated_at?: string;
  name?: string;
  vcs_integration_id?: string;
  organization_id?: string;
  /** Stack id. */
  provider_id?: string;
  /** Null for custom runners. */
  stock_runner_id?: string | null;
  labels?: string[];
  active?: boolean;
  pool_size?: number;
  meta?: {supports_snapshot?: boolean; [k: string]: unknown};
  configuration?: RunnerConfiguration & {[k: string]: unknown};
  [k: string]: unknown;
}

/** Query of GET /api/v1/runners. */
export interface ListRunnersQuery {
  /** Sent as `only_custom_runners=true|false` when set. */
  onlyCustomRunners?: boolean;
  /** Runner-image id filter. */
  image?: string;
}

/** Query of GET /api/v1/stacks. */
export interface ListStacksQuery {
  /** e.g. `ec2`. */
  kind?: string;
}
