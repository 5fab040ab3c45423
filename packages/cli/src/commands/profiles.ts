import type {BuilderProfile} from '@remote-builder-actions/core';
import {positionals} from '../args.js';
import type {Command, CommandGroup} from '../command.js';
import {ExitCode} from '../exit-codes.js';
import {cell, formatTable} from '../output.js';

/** Fields that may name a profile's architectures, in the order they are looked at. */
const ARCH_FIELDS = ['architectures', 'archs', 'arch', 'platforms'] as const;

/**
 * The architectures a profile lists, read tolerantly: the spec shows no field beyond the id and the name, so
 * the first of ARCH_FIELDS that holds a list of strings or a comma-separated string; undefined when none does.
 */
export function profileArchitectures(p: BuilderProfile): string[] | undefined {
  for (const field of ARCH_FIELDS) {
    const v = p[field];
    const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : undefined;
    const names = items
      ?.filter((a): a is string => typeof a === 'string')
      .map(a => a.trim())
      .filter(a => a !== '');
    if (names && names.length > 0) return names;
  }
  return undefined;
}

const list: Command = {
  name: 'list',
  summary: 'list the builder profiles (every page)',
  help: `Usage: remote-builder profiles list

Lists the builder profiles: the names "builder up --profile" takes, with their architectures when the
service lists them ("-" when it does not). Profiles and their architectures are set in the web UI.`,
  options: {},
  async run(ctx, args) {
    positionals(args, [], 'profiles list');
    const profiles = await ctx.api().builders.listBuilderProfiles({signal: ctx.signal});
    if (ctx.json) {
      ctx.outJson(profiles);
    } else if (profiles.length === 0) {
      ctx.logger.info('No builder profiles: create one in the web UI.');
    } else {
      const rows = profiles.map(p => [p.id, cell(p.name), cell(profileArchitectures(p))]);
      ctx.out(formatTable([['ID', 'NAME', 'ARCHITECTURES'], ...rows]));
    }
    return ExitCode.Ok;
  }
};

/** The profile whose id is `ref`, else the one named `ref`; throws when none or several match. */
export function resolveProfile(profiles: BuilderProfile[], ref: string): BuilderProfile {
  const byId = profiles.find(p => p.id === ref);
  if (byId) return byId;
  const named = profiles.filter(p => p.name === ref);
  if (named.length === 1) return named[0] as BuilderProfile;
  if (named.length > 1) {
    throw new Error(
      `${named.length} builder profiles are named "${ref}" (${named.map(p => p.id).join(', ')}): give the id`
    );
  }
  throw new Error(`No builder profile named or with id "${ref}": see "remote-builder profiles list"`);
}

const resetCache: Command = {
  name: 'reset-cache',
  summary: 'clear the cached layers of a builder profile',
  help: `Usage: remote-builder profiles reset-cache NAME|ID

Clears the cached layers of one builder profile, given by name (looked up in the list) or id.
Nothing else changes; the next builds start with a cold cache.`,
  options: {},
  async run(ctx, args) {
    const [ref] = positionals(args, ['NAME|ID'], 'profiles reset-cache') as [string];
    const api = ctx.api();
    const profile = resolveProfile(await api.builders.listBuilderProfiles({signal: ctx.signal}), ref);
    const response = await api.builders.resetBuilderProfileCache(profile.id, {signal: ctx.signal});
    if (ctx.json) {
      ctx.outJson({id: profile.id, name: profile.name ?? null, response: response ?? null});
    } else {
      const label = profile.name !== undefined ? `"${profile.name}" (${profile.id})` : profile.id;
      ctx.out(`Reset the cache of builder profile ${label}.\n`);
    }
    return ExitCode.Ok;
  }
};

/** `remote-builder profiles …` */
export const profilesGroup: CommandGroup = {
  name: 'profiles',
  summary: 'list builder profiles, reset their cache',
  commands: [list, resetCache]
};
