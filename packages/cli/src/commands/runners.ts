import type {
  CreateRunnerRequest,
  Runner,
  RunnerByocSku,
  RunnerStorage,
  UpdateRunnerRequest
} from '@remote-builder-actions/core/ci';
import {
  list,
  nonNegativeNumber,
  positionals,
  required,
  str,
  wholeNumber,
  type OptionSpecs,
  type OptionValues
} from '../args.js';
import type {Command, CommandGroup} from '../command.js';
import {ExitCode} from '../exit-codes.js';
import {withFlagNames} from '../field-flags.js';
import {cell, formatRecord, formatTable} from '../output.js';
import {UsageError} from '../usage-error.js';

/** Options shared by create and update: the updatable fields of spec §4.3. */
const CONFIG_OPTIONS = {
  'pool-size': {type: 'string'},
  labels: {type: 'string'},
  image: {type: 'string'},
  'capacity-type': {type: 'string'},
  sku: {type: 'string'},
  'storage-tier': {type: 'string'},
  'storage-size': {type: 'string'},
  'storage-throughput': {type: 'string'},
  'storage-iops': {type: 'string'},
  'storage-disk-type': {type: 'string'},
  'storage-performance-tier': {type: 'string'},
  'instance-types': {type: 'string'},
  arch: {type: 'string'},
  'network-tier': {type: 'string'},
  public: {type: 'boolean'},
  'no-public': {type: 'boolean'}
} as const satisfies OptionSpecs;

const CONFIG_HELP = `  --pool-size N                  pool_size
  --labels A,B                   labels (default on create: the runner name)
  --image IMAGE_ID               configuration.image (a runner-image id, see "images list")
  --capacity-type TYPE           configuration.capacity_type, e.g. ondemand
  --sku SKU                      configuration.sku
  --storage-tier TIER            configuration.storage.tier, e.g. custom
  --storage-size N               configuration.storage.size
  --storage-throughput N         configuration.storage.throughput
  --storage-iops N               configuration.storage.iops
  --storage-disk-type TYPE       configuration.storage.disk_type
  --storage-performance-tier T   configuration.storage.performance_tier
  --instance-types T1,T2         configuration.byoc_sku.instance_types (machine types)
  --arch ARCH                    configuration.byoc_sku.arch, e.g. x64
  --network-tier TIER            configuration.byoc_sku.network_tier, e.g. STANDARD
  --public, --no-public          configuration.byoc_sku.is_public`;

/** Storage, byoc_sku (without role_arn) and the top-level updatable fields from the flags. */
function configFromFlags(v: OptionValues, command: string) {
  const storage: RunnerStorage = {};
  const tier = str(v, 'storage-tier');
  if (tier !== undefined) storage.tier = tier;
  for (const [flag, key] of [
    ['storage-size', 'size'],
    ['storage-throughput', 'throughput'],
    ['storage-iops', 'iops']
  ] as const) {
    const raw = str(v, flag);
    if (raw !== undefined) storage[key] = nonNegativeNumber(raw, flag, command);
  }
  const diskType = str(v, 'storage-disk-type');
  if (diskType !== undefined) storage.disk_type = diskType;
  const perfTier = str(v, 'storage-performance-tier');
  if (perfTier !== undefined) storage.performance_tier = perfTier;

  const sku: Omit<RunnerByocSku, 'role_arn'> = {};
  const types = str(v, 'instance-types');
  if (types !== undefined) sku.instance_types = list(types);
  if (v.public === true && v['no-public'] === true)
    throw new UsageError('give --public or --no-public, not both', command);
  if (v.public === true) sku.is_public = true;
  if (v['no-public'] === true) sku.is_public = false;
  const arch = str(v, 'arch');
  if (arch !== undefined) sku.arch = arch;
  const networkTier = str(v, 'network-tier');
  if (networkTier !== undefined) sku.network_tier = networkTier;

  const poolRaw = str(v, 'pool-size');
  const labels = str(v, 'labels');
  return {
    poolSize: poolRaw === undefined ? undefined : wholeNumber(poolRaw, 'pool-size', command),
    labels: labels === undefined ? undefined : list(labels),
    image: str(v, 'image'),
    capacityType: str(v, 'capacity-type'),
    sku: str(v, 'sku'),
    storage: Object.keys(storage).length > 0 ? storage : undefined,
    byocSku: sku
  };
}

function showRunner(ctx: Parameters<Command['run']>[0], runner: Runner): void {
  if (ctx.json) ctx.outJson(runner);
  else ctx.out(formatRecord(runner));
}

const listCmd: Command = {
  name: 'list',
  summary: 'list runners (not paginated)',
  help: `Usage: remote-builder runners list [--only-custom-runners] [--image IMAGE_ID]

Lists the runners. Unused custom runners should be deleted: many runners slow down job pick-up.

Options:
  --only-custom-runners   only custom runners (only_custom_runners=true)
  --image IMAGE_ID        only runners of this runner image`,
  options: {'only-custom-runners': {type: 'boolean'}, image: {type: 'string'}},
  async run(ctx, args) {
    positionals(args, [], 'runners list');
    const image = str(args.values, 'image');
    const runners = await ctx.api().ci.listRunners(
      {
        onlyCustomRunners: args.values['only-custom-runners'] === true ? true : undefined,
        image
      },
      {signal: ctx.signal}
    );
    if (ctx.json) {
      ctx.outJson(runners);
    } else if (runners.length === 0) {
      ctx.logger.info('No runners.');
    } else {
      ctx.out(
        formatTable([
          ['ID', 'NAME', 'ACTIVE', 'POOL', 'IMAGE', 'LABELS', 'STOCK', 'CREATED'],
          ...runners.map(r => [
            r.id,
            cell(r.name),
            cell(r.active),
            cell(r.pool_size),
            cell(r.configuration?.image),
            cell(r.labels),
            r.stock_runner_id ? 'yes' : 'no',
            cell(r.created_at)
          ])
        ])
      );
    }
    return ExitCode.Ok;
  }
};

const getCmd: Command = {
  name: 'get',
  summary: 'show one runner',
  help: `Usage: remote-builder runners get RUNNER_ID

Shows one runner record.`,
  options: {},
  async run(ctx, args) {
    const [id] = positionals(args, ['RUNNER_ID'], 'runners get') as [string];
    showRunner(ctx, await ctx.api().ci.getRunner(id, {signal: ctx.signal}));
    return ExitCode.Ok;
  }
};

const createCmd: Command = {
  name: 'create',
  summary: 'create a custom runner',
  help: `Usage: remote-builder runners create --name NAME --provider-id STACK_ID --image IMAGE_ID
                                --role-arn ARN --instance-types T1,T2 [options]

Creates a custom runner and prints its record.

Required:
  --name NAME                    name: lowercase letters and hyphens only
  --provider-id STACK_ID         provider_id: a stack id, see "stacks list"
  --image IMAGE_ID               configuration.image
  --role-arn ARN                 configuration.byoc_sku.role_arn (instance role; may be "")
  --instance-types T1,T2         configuration.byoc_sku.instance_types

Options:
${CONFIG_HELP}`,
  options: {...CONFIG_OPTIONS, name: {type: 'string'}, 'provider-id': {type: 'string'}, 'role-arn': {type: 'string'}},
  async run(ctx, args) {
    const cmd = 'runners create';
    positionals(args, [], cmd);
    const v = args.values;
    const name = required(v, 'name', cmd);
    const providerId = required(v, 'provider-id', cmd);
    const image = required(v, 'image', cmd);
    const roleArn = required(v, 'role-arn', cmd);
    required(v, 'instance-types', cmd);
    const c = configFromFlags(v, cmd);
    const req: CreateRunnerRequest = {
      name,
      provider_id: providerId,
      pool_size: c.poolSize,
      labels: c.labels,
      configuration: {
        image,
        capacity_type: c.capacityType,
        sku: c.sku,
        storage: c.storage,
        byoc_sku: {...c.byocSku, role_arn: roleArn, instance_types: c.byocSku.instance_types ?? []}
      }
    };
    const runner = await withFlagNames(() => ctx.api().ci.createRunner(req, {signal: ctx.signal}));
    ctx.logger.info(`Created runner "${runner.name ?? name}" (${runner.id})`);
    showRunner(ctx, runner);
    return ExitCode.Ok;
  }
};

const updateCmd: Command = {
  name: 'update',
  summary: 'change a runner (pool size, labels, configuration; not the role)',
  help: `Usage: remote-builder runners update RUNNER_ID [options]

Changes the given fields of a runner (PATCH) and prints its record. The role (role_arn) cannot be
changed by an update; nested fields not given keep their values.

Options:
${CONFIG_HELP}`,
  options: {...CONFIG_OPTIONS, 'role-arn': {type: 'string'}},
  async run(ctx, args) {
    const cmd = 'runners update';
    const [id] = positionals(args, ['RUNNER_ID'], cmd) as [string];
    if (args.values['role-arn'] !== undefined) {
      throw new UsageError('--role-arn cannot be changed by an update (spec §4.3): create a new runner instead', cmd);
    }
    const c = configFromFlags(args.values, cmd);
    const configuration: NonNullable<UpdateRunnerRequest['configuration']> = {};
    if (c.image !== undefined) configuration.image = c.image;
    if (c.capacityType !== undefined) configuration.capacity_type = c.capacityType;
    if (c.sku !== undefined) configuration.sku = c.sku;
    if (c.storage) configuration.storage = c.storage;
    if (Object.keys(c.byocSku).length > 0) configuration.byoc_sku = c.byocSku;
    const req: UpdateRunnerRequest = {};
    if (c.poolSize !== undefined) req.pool_size = c.poolSize;
    if (c.labels !== undefined) req.labels = c.labels;
    if (Object.keys(configuration).length > 0) req.configuration = configuration;
    if (Object.keys(req).length === 0) throw new UsageError('nothing to update: give at least one option', cmd);
    const runner = await withFlagNames(() => ctx.api().ci.updateRunner(id, req, {signal: ctx.signal}));
    ctx.logger.info(`Updated runner "${runner.name ?? id}" (${runner.id})`);
    showRunner(ctx, runner);
    return ExitCode.Ok;
  }
};

const deleteCmd: Command = {
  name: 'delete',
  summary: 'delete a runner (irreversible)',
  help: `Usage: remote-builder runners delete RUNNER_ID

Deletes a runner, irreversibly, and prints its last record.`,
  options: {},
  async run(ctx, args) {
    const [id] = positionals(args, ['RUNNER_ID'], 'runners delete') as [string];
    const runner = await ctx.api().ci.deleteRunner(id, {signal: ctx.signal});
    ctx.logger.info(`Deleted runner "${runner.name ?? id}" (${runner.id})`);
    showRunner(ctx, runner);
    return ExitCode.Ok;
  }
};

/** `remote-builder runners …` */
export const runnersGroup: CommandGroup = {
  name: 'runners',
  summary: 'list, show, create, update and delete runners',
  commands: [listCmd, getCmd, createCmd, updateCmd, deleteCmd]
};
