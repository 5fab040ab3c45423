import {
  errorMessage,
  goneAnswerOf,
  loadBuilderState,
  lostStatusOf,
  pendingBuilderIds,
  type BuilderState
} from '@remote-builder-actions/core';
import {positionals} from '../args.js';
import type {Command} from '../command.js';
import type {CommandContext} from '../context.js';
import {ExitCode} from '../exit-codes.js';
import {cell, formatTable} from '../output.js';
import {FileStateStore, listStateNames, stateFileOf} from '../state-file.js';

/** What the service says of one builder id: assigned (billed), gone, or unknown (it could not be asked). */
export interface BuilderAssignment {
  id: string;
  /** null: the service could not be asked (see `why`). */
  assigned: boolean | null;
  /** The status the service reports, when it reports one. */
  status?: string;
  /** Why it is not assigned, or why it is unknown. */
  why?: string;
}

/** One builder of `builder ls`. */
export interface ListedBuilder {
  name: string;
  profile: string | null;
  builderIds: string[];
  createdAt: string | null;
  ageSeconds: number | null;
  stateFile: string;
  builders: BuilderAssignment[];
  /** Set when the state file cannot be read. */
  error?: string;
}

/** The age of `ms` in its two largest units: 45s, 12m, 3h 5m, 2d 4h. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** Asks the service (at the URL the builder was assigned from) whether each id is still assigned. */
async function assignments(ctx: CommandContext, state: BuilderState): Promise<BuilderAssignment[]> {
  const pending = pendingBuilderIds(state);
  const api = pending.length > 0 ? ctx.api(state.apiUrl) : undefined;
  return Promise.all(
    state.builderIds.map(async (id): Promise<BuilderAssignment> => {
      if (!api || !pending.includes(id)) return {id, assigned: false, why: 'torn down by this CLI'};
      try {
        const details = await api.builders.getBuilderDetails(id, {signal: ctx.signal, retry: false});
        const lost = lostStatusOf(details);
        const status = details.status !== undefined ? {status: details.status} : {};
        // The spec shows no status field: an answer without a final status is an assigned builder.
        return lost ? {id, assigned: false, ...status, why: lost} : {id, assigned: true, ...status};
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        const gone = goneAnswerOf(e);
        return gone ? {id, assigned: false, why: gone} : {id, assigned: null, why: errorMessage(e)};
      }
    })
  );
}

async function describeBuilder(ctx: CommandContext, name: string, now: number): Promise<ListedBuilder> {
  const store = new FileStateStore(stateFileOf(ctx.stateDir(), name));
  const base = {name, stateFile: store.path};
  let state: BuilderState | undefined;
  let createdAt: Date | undefined;
  try {
    state = loadBuilderState(store);
    createdAt = store.createdAt();
  } catch (e) {
    const error = `${store.path} is unreadable: ${errorMessage(e)}`;
    return {...base, profile: null, builderIds: [], createdAt: null, ageSeconds: null, builders: [], error};
  }
  return {
    ...base,
    profile: state?.profile ?? null,
    builderIds: state?.builderIds ?? [],
    createdAt: createdAt?.toISOString() ?? null,
    ageSeconds: createdAt ? Math.max(0, Math.floor((now - createdAt.getTime()) / 1000)) : null,
    builders: state ? await assignments(ctx, state) : []
  };
}

/** The ASSIGNED cell: yes, no, "1 of 2", or "?" when the service could not be asked about one of them. */
function assignedCell(b: ListedBuilder): string {
  if (b.error !== undefined) return 'unreadable';
  if (b.builders.length === 0) return 'no';
  if (b.builders.some(a => a.assigned === null)) return '?';
  const yes = b.builders.filter(a => a.assigned).length;
  if (yes === b.builders.length) return 'yes';
  return yes === 0 ? 'no' : `${yes} of ${b.builders.length}`;
}

export const ls: Command = {
  name: 'ls',
  summary: "list this machine's builders (from builder up/run) and whether they are still assigned",
  help: `Usage: remote-builder builder ls

Lists the builders "builder up" and "builder run" started on this machine and still know of (their state
files in the state dir): name, builder profile, builder ids, age, and whether the service still has them
assigned (and so billed): yes, no, "1 of 2", or ? when the service could not be asked. A builder that is
still assigned is stopped with "remote-builder builder down --name NAME". State files moved with
--state-file are not listed.

The state dir is $XDG_STATE_HOME/remote-builder, else ~/.local/state/remote-builder.`,
  options: {},
  async run(ctx, args) {
    positionals(args, [], 'builder ls');
    const now = ctx.deps.clock?.now() ?? Date.now();
    const listed = await Promise.all(listStateNames(ctx.stateDir()).map(n => describeBuilder(ctx, n, now)));
    for (const b of listed) {
      if (b.error !== undefined) ctx.logger.warning(b.error);
      for (const a of b.builders.filter(x => x.assigned === null)) {
        ctx.logger.warning(`Could not ask the service about ${a.id} (builder "${b.name}"): ${a.why}`);
      }
    }
    if (ctx.json) {
      ctx.outJson(listed);
    } else if (listed.length === 0) {
      ctx.logger.info(`No builder is up (${ctx.stateDir()}).`);
    } else {
      const rows = listed.map(b => [
        b.name,
        cell(b.profile ?? undefined),
        cell(b.builderIds),
        b.ageSeconds === null ? '-' : formatAge(b.ageSeconds * 1000),
        assignedCell(b)
      ]);
      ctx.out(formatTable([['NAME', 'PROFILE', 'BUILDER IDS', 'AGE', 'ASSIGNED'], ...rows]));
    }
    return ExitCode.Ok;
  }
};
