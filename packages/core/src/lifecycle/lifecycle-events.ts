import type {BuilderDetails, BuilderInstance} from '../api/types.js';
import type {TeardownReport} from './teardown.js';

/** The phases of a builder's life the lifecycle announces, in order. */
export type LifecyclePhase = 'assign' | 'readiness' | 'buildx setup';

/**
 * What the lifecycle tells its owner as it happens; the run maps these onto its record (step-run.ts), so
 * the lifecycle knows nothing of reports. Each is optional. Only `assigned` may throw: it rejects the
 * assignment, whose ids are already in the state to be torn down.
 */
export interface LifecycleEvents {
  /** A phase begins. */
  phase?(phase: LifecyclePhase): void;
  /** The service assigned (and bills) these builders; `sentAt` is when the request went out. */
  assigned?(profile: string, instances: Pick<BuilderInstance, 'id'>[], sentAt: number): void;
  /** A builder passed readiness, with the details that made it ready (they hold its client key). */
  ready?(id: string, details: BuilderDetails): void;
  /** A teardown ended: what it tore down, found gone, or could not tear down. */
  tornDown?(report: TeardownReport): void;
}
