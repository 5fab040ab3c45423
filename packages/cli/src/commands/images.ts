import type {CreateRunnerImageRequest, RunnerImage, UpdateRunnerImageRequest} from '@remote-builder-actions/core/ci';
import {positionals, required, str, wholeNumber, type OptionValues} from '../args.js';
import type {Command, CommandGroup} from '../command.js';
import type {CommandContext} from '../context.js';
import {ExitCode} from '../exit-codes.js';
import {withFlagNames} from '../field-flags.js';
import {cell, formatRecord, formatTable} from '../output.js';
import {UsageError} from '../usage-error.js';

/** The image type given by the spec (§2.2), used when --type is not given. */
export const DEFAULT_IMAGE_TYPE = 'byoc_ami';

function showImage(ctx: CommandContext, image: RunnerImage): void {
  if (ctx.json) ctx.outJson(image);
  else ctx.out(formatRecord(image));
}

/** settings and byoc_ami from the flags (undefined when none given). */
function imageParts(v: OptionValues, command: string): Pick<CreateRunnerImageRequest, 'settings' | 'byoc_ami'> {
  const out: Pick<CreateRunnerImageRequest, 'settings' | 'byoc_ami'> = {};
  const offset = str(v, 'purge-image-versions-offset');
  if (offset !== undefined) {
    out.settings = {purge_image_versions_offset: wholeNumber(offset, 'purge-image-versions-offset', command)};
  }
  const amiId = str(v, 'ami-id');
  const device = str(v, 'root-device-name');
  if (amiId !== undefined || device !== undefined) {
    out.byoc_ami = {ami_id: amiId, root_device_name: device};
  }
  return out;
}

const PART_OPTIONS = {
  'purge-image-versions-offset': {type: 'string'},
  'ami-id': {type: 'string'},
  'root-device-name': {type: 'string'}
} as const;

const PART_HELP = `  --purge-image-versions-offset N   settings.purge_image_versions_offset
  --ami-id AMI                      byoc_ami.ami_id (machine-image id)
  --root-device-name DEVICE         byoc_ami.root_device_name, e.g. /dev/sda1`;

const listCmd: Command = {
  name: 'list',
  summary: 'list runner images (every page, or one)',
  help: `Usage: remote-builder images list [--alias ALIAS] [--type TYPE] [--page N] [--per-page N]

Lists runner images. Without --page every page is fetched.

Options:
  --alias ALIAS      alias search filter
  --type TYPE        image type, e.g. byoc_ami
  --page N           only this page (from 1)
  --per-page N       page size (default 100)`,
  options: {alias: {type: 'string'}, type: {type: 'string'}, page: {type: 'string'}, 'per-page': {type: 'string'}},
  async run(ctx, args) {
    const cmd = 'images list';
    positionals(args, [], cmd);
    const v = args.values;
    const alias = str(v, 'alias');
    const type = str(v, 'type');
    const pageRaw = str(v, 'page');
    const perPageRaw = str(v, 'per-page');
    const filter = {alias, type};
    const perPage = perPageRaw === undefined ? undefined : wholeNumber(perPageRaw, 'per-page', cmd, 1);
    const api = ctx.api();
    let images: RunnerImage[];
    if (pageRaw !== undefined) {
      const page = wholeNumber(pageRaw, 'page', cmd, 1);
      const got = await api.ci.listRunnerImages({...filter, page, perPage}, {signal: ctx.signal});
      images = got.images;
      if (got.total !== undefined && !ctx.json)
        ctx.logger.info(`Page ${page}: ${images.length} of ${got.total} images`);
    } else {
      images = await api.ci.listAllRunnerImages({...filter, perPage}, {signal: ctx.signal});
    }
    if (ctx.json) {
      ctx.outJson(images);
    } else if (images.length === 0) {
      ctx.logger.info('No runner images.');
    } else {
      ctx.out(
        formatTable([
          ['ID', 'ALIAS', 'TYPE', 'OS', 'ARCH', 'STACK'],
          ...images.map(i => [i.id, cell(i.alias), cell(i.type), cell(i.os), cell(i.arch), cell(i.stack_id)])
        ])
      );
    }
    return ExitCode.Ok;
  }
};

const createCmd: Command = {
  name: 'create',
  summary: 'create a runner image',
  help: `Usage: remote-builder images create --alias ALIAS --stack-id STACK_ID [options]

Creates a runner image (a bring-your-own-cloud machine image) and prints its record.

Required:
  --alias ALIAS                     alias: the image's name
  --stack-id STACK_ID               stack_id: see "stacks list"

Options:
  --type TYPE                       type (default ${DEFAULT_IMAGE_TYPE})
  --os OS                           os, e.g. linux
  --arch ARCH                       arch, e.g. x64
  --image-uri URI                   service_image.image_uri
  --cloud-init-template TEXT        service_image.cloud_init_template
${PART_HELP}`,
  options: {
    alias: {type: 'string'},
    'stack-id': {type: 'string'},
    type: {type: 'string'},
    os: {type: 'string'},
    arch: {type: 'string'},
    'image-uri': {type: 'string'},
    'cloud-init-template': {type: 'string'},
    ...PART_OPTIONS
  },
  async run(ctx, args) {
    const cmd = 'images create';
    positionals(args, [], cmd);
    const v = args.values;
    const req: CreateRunnerImageRequest = {
      alias: required(v, 'alias', cmd),
      stack_id: required(v, 'stack-id', cmd),
      type: str(v, 'type') ?? DEFAULT_IMAGE_TYPE
    };
    const os = str(v, 'os');
    if (os !== undefined) req.os = os;
    const arch = str(v, 'arch');
    if (arch !== undefined) req.arch = arch;
    const uri = str(v, 'image-uri');
    const template = str(v, 'cloud-init-template');
    if (uri !== undefined || template !== undefined) {
      req.service_image = {image_uri: uri, cloud_init_template: template};
    }
    Object.assign(req, imageParts(v, cmd));
    const image = await withFlagNames(() => ctx.api().ci.createRunnerImage(req, {signal: ctx.signal}));
    ctx.logger.info(`Created runner image "${image.alias ?? req.alias}" (${image.id})`);
    showImage(ctx, image);
    return ExitCode.Ok;
  }
};

const updateCmd: Command = {
  name: 'update',
  summary: 'change the settings and machine image of a runner image',
  help: `Usage: remote-builder images update IMAGE_ID [options]

Updates a runner image (PUT with id, settings and byoc_ami) and prints what the service answers.
Find the id with "images list --alias ALIAS".

Options:
${PART_HELP}`,
  options: {...PART_OPTIONS},
  async run(ctx, args) {
    const cmd = 'images update';
    const [id] = positionals(args, ['IMAGE_ID'], cmd) as [string];
    const req: UpdateRunnerImageRequest = imageParts(args.values, cmd);
    if (Object.keys(req).length === 0) throw new UsageError('nothing to update: give at least one option', cmd);
    const image = await withFlagNames(() => ctx.api().ci.updateRunnerImage(id, req, {signal: ctx.signal}));
    ctx.logger.info(`Updated runner image ${image.id}`);
    showImage(ctx, image);
    return ExitCode.Ok;
  }
};

/** `remote-builder images …` */
export const imagesGroup: CommandGroup = {
  name: 'images',
  summary: 'list, create and update runner images',
  commands: [listCmd, createCmd, updateCmd]
};
