/** Keys under which the actions save state for their post step. */
export enum State {
  Builder = 'builder',
  /** The run record for the job summary (report/run-recorder.ts). */
  Run = 'run'
}

/** Where state goes: @actions/core saveState/getState on a runner, a map in tests. */
export interface StateStore {
  save(key: string, value: string): void;
  get(key: string): string;
}

/**
 * BuilderState is everything post needs to clean up, and nothing secret: no API key, no PEM.
 * It is saved right after assignment and again as fields become known.
 */
export interface BuilderState {
  v: 1;
  /** buildx builder name. */
  builderName: string;
  /** Every builder id assigned, across every profile tried. */
  builderIds: string[];
  /** Ids already torn down by main (post skips them). */
  tornDownIds: string[];
  /** Folder holding the certificates. */
  certDir: string;
  /** API base URL, so post talks to the same service. */
  apiUrl: string;
  /** Profile the builders came from. */
  profile?: string;
  /** True once `buildx create` ran, so post knows to `buildx rm`. */
  buildxCreated: boolean;
}

/** The builders assigned and not torn down yet: what may still be billed, and what a teardown acts on. */
export function pendingBuilderIds(state: Pick<BuilderState, 'builderIds' | 'tornDownIds'> | undefined): string[] {
  return state ? state.builderIds.filter(id => !state.tornDownIds.includes(id)) : [];
}

/** Saves the state blob. */
export function saveBuilderState(store: StateStore, state: BuilderState): void {
  store.save(State.Builder, JSON.stringify(state));
}

/** Reads the state blob; undefined when main saved none (e.g. it failed before assigning). */
export function loadBuilderState(store: StateStore): BuilderState | undefined {
  const raw = store.get(State.Builder);
  if (!raw) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(`the saved state "${State.Builder}" is not JSON`);
  }
  const s = parsed as Partial<BuilderState>;
  if (
    typeof s !== 'object' ||
    s === null ||
    typeof s.builderName !== 'string' ||
    !Array.isArray(s.builderIds) ||
    !s.builderIds.every(id => typeof id === 'string') ||
    typeof s.apiUrl !== 'string'
  ) {
    throw new Error(`the saved state "${State.Builder}" is not a builder state`);
  }
  return {
    v: 1,
    builderName: s.builderName,
    builderIds: s.builderIds,
    tornDownIds: Array.isArray(s.tornDownIds) ? s.tornDownIds.filter(id => typeof id === 'string') : [],
    certDir: typeof s.certDir === 'string' ? s.certDir : '',
    apiUrl: s.apiUrl,
    // Absent (not undefined) when the saved state has none.
    ...(typeof s.profile === 'string' ? {profile: s.profile} : {}),
    buildxCreated: s.buildxCreated === true
  };
}

/** A StateStore in memory, for tests and the CLI. */
export class MemoryStateStore implements StateStore {
  readonly values = new Map<string, string>();
  save(key: string, value: string): void {
    this.values.set(key, value);
  }
  get(key: string): string {
    return this.values.get(key) ?? '';
  }
}
