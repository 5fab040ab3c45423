import type {BuilderApi} from '../api/builder-api.js';
import type {Buildx} from '../buildx/buildx.js';
import {unionPlatforms} from '../buildx/platforms.js';
import type {Clock} from '../clock.js';
import type {InspectedBuilder} from '../docker/builder-inspect.js';
import type {Logger} from '../logger.js';
import type {BuilderState} from '../state.js';
import {waitForAllReady} from './all-ready.js';
import {assignBuilders} from './assignment.js';
import {preloadBuildkitInfo, type BuildkitInfoCall} from './buildkit-info.js';
import {BuildxSetup, type ProvisionedNode} from './buildx-setup.js';
import {uniqueNodeNames} from './node-names.js';
import type {LifecycleEvents} from './lifecycle-events.js';
import type {PollSchedule, ReadyBuilder} from './readiness.js';
import type {TlsProbe} from './tls-probe.js';

export interface ProvisionedBuilder {
  /** buildx builder name (also when buildx was not set up: the name it would have). */
  name: string;
  profile: string;
  builderIds: string[];
  /** By builder index (the order of builderIds). */
  nodes: ProvisionedNode[];
  /** Union of the nodes' platforms. */
  platforms: string[];
  certDir: string;
  /** Assignment request → every builder ready (TLS checked), in ms. */
  timeToReadyMs: number;
  buildxCreated: boolean;
  /** The ready builders with their endpoints and TLS material (in memory only), for health checks. */
  ready: ReadyBuilder[];
}

export interface ProvisionOpts {
  /** Profiles to try in order; the next one is tried when one cannot give ready builders. */
  profiles: string[];
  /** Per profile: assignment → ready (and buildx booted) must fit in this many ms. */
  timeoutMs: number;
  /** Create the local buildx builder (remote driver, one node per builder). */
  setupBuildx: boolean;
  /** Make it the default buildx builder. */
  use: boolean;
  /** Cancellation (SIGINT/SIGTERM): whatever is assigned is torn down before provision rejects. */
  signal?: AbortSignal;
}

/** What one profile's provisioning runs with: the lifecycle's collaborators and its state. */
export interface ProfileProvisionEnv {
  api: BuilderApi;
  clock: Clock;
  logger: Logger;
  probe: TlsProbe;
  buildkitInfo?: BuildkitInfoCall;
  buildx: Buildx;
  /** The lifecycle's state: the assigned ids and the buildx builder go in as they are known. */
  state: BuilderState;
  save: () => void;
  events?: LifecycleEvents;
  schedule?: PollSchedule;
  details404GraceMs?: number;
  inFlightGraceMs?: number;
}

/**
 * One profile to ready builders: assign (assignment.ts) → the buildx builder made with a placeholder node →
 * every builder ready, each made a buildx node the moment it is (all-ready.ts, buildx-setup.ts) →
 * certificates and the buildx builder, inspected. The ids go into `state` (saved) the moment the assignment
 * answers; the caller tears down on failure.
 */
export async function provisionProfile(
  profile: string,
  opts: ProvisionOpts,
  env: ProfileProvisionEnv
): Promise<{builder: ProvisionedBuilder; inspected?: InspectedBuilder}> {
  const {state} = env;
  let inspected: InspectedBuilder | undefined;
  const startedAt = env.clock.now();
  const deadline = startedAt + opts.timeoutMs;

  env.events?.phase?.('assign');
  const ids = await env.logger.group(`Assigning a builder from profile "${profile}"`, async () => {
    const assigned = await assignBuilders({
      api: env.api,
      clock: env.clock,
      logger: env.logger,
      profile,
      deadline,
      signal: opts.signal,
      inFlightGraceMs: env.inFlightGraceMs,
      onAssigned: (instances, sentAt) => {
        // Billed from now on: the ids go into memory first, so that a failed state write or record below
        // (it rejects the assignment) still has provision's catch tear them down and report them.
        state.builderIds.push(...instances.map(b => b.id).filter(id => !state.builderIds.includes(id)));
        state.profile = profile;
        try {
          env.save();
        } finally {
          env.events?.assigned?.(profile, instances, sentAt);
        }
      }
    });
    env.logger.info(`Assigned ${count(assigned.length, 'builder')}: ${assigned.join(', ')}`);
    return assigned;
  });

  const setup = new BuildxSetup({
    buildx: env.buildx,
    clock: env.clock,
    logger: env.logger,
    builderName: state.builderName,
    certDir: state.certDir,
    nodeNames: uniqueNodeNames(ids),
    setupBuildx: opts.setupBuildx,
    use: opts.use,
    deadline,
    signal: opts.signal,
    onCreated: () => {
      state.buildxCreated = true;
      env.save();
    },
    buildkitInfo: env.buildkitInfo
  });
  try {
    // The buildx builder is made while the builders boot, so the first ready one only takes its node's place.
    setup.prepare();
    env.events?.phase?.('readiness');
    const ready = await env.logger.group(`Waiting for ${count(ids.length, 'builder')} to be ready`, async () => {
      const waiting = waitForAllReady(ids, {
        api: env.api,
        clock: env.clock,
        logger: env.logger,
        probe: env.probe,
        deadline,
        timeoutStartedAt: startedAt,
        signal: opts.signal,
        stop: setup.failed,
        schedule: env.schedule,
        details404GraceMs: env.details404GraceMs,
        // The node is set up (and its BuildKit asked) as soon as the details are complete; the connection of
        // that Control/Info call spares the TLS probe when it proves the builder. Asked again once the
        // builder is proven ready, if it had not answered.
        onComplete: (b, index) => setup.add(b, index),
        onReady: (b, index) => {
          if (b.details) env.events?.ready?.(b.id, b.details);
          setup.ready(b, index);
        }
      });
      // Loaded while the details requests are on the network, for the Control/Info calls that follow.
      if (env.buildkitInfo && opts.setupBuildx) void preloadBuildkitInfo();
      const all = await waiting;
      env.logger.info(`All builders ready after ${env.clock.now() - startedAt} ms`);
      return all;
    });
    const timeToReadyMs = env.clock.now() - startedAt;

    // What is left of the certificates and the buildx builder: one phase, one log group.
    if (opts.setupBuildx) env.events?.phase?.('buildx setup');
    const title = opts.setupBuildx
      ? `Setting up buildx builder "${state.builderName}" (certificates, remote driver)`
      : 'Writing the certificates';
    const nodes = await env.logger.group(title, async () => {
      const all = await setup.nodes();
      env.logger.info(`Wrote the certificates of ${count(all.length, 'node')} to ${state.certDir}`);
      if (opts.setupBuildx) inspected = await setup.inspect();
      return all;
    });
    const builder: ProvisionedBuilder = {
      name: state.builderName,
      profile,
      builderIds: ids,
      nodes,
      platforms: unionPlatforms(nodes.map(n => n.platforms)),
      certDir: state.certDir,
      timeToReadyMs,
      buildxCreated: state.buildxCreated,
      ready
    };
    return {builder, inspected};
  } catch (e) {
    // No buildx call may outlive the attempt: the teardown that follows removes what they made.
    await setup.halt();
    throw e;
  }
}

/** "1 builder", "3 builders". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
