import {MemoryStateStore} from '../../src/state.js';

/** A MemoryStateStore that also logs each save as `save:<builderIds>` (for the builder blob) onto `events`. */
export class RecordingStateStore extends MemoryStateStore {
  readonly saves: string[] = [];

  constructor(readonly events: string[] = []) {
    super();
  }

  override save(key: string, value: string): void {
    super.save(key, value);
    this.saves.push(value);
    let ids = '?';
    try {
      ids = (JSON.parse(value) as {builderIds?: string[]}).builderIds?.join(',') ?? '?';
    } catch {
      // not the builder blob
    }
    this.events.push(`save:${key}:[${ids}]`);
  }

  /** The last value saved under the key, parsed. */
  parsed<T = unknown>(key: string): T {
    return JSON.parse(this.get(key)) as T;
  }
}
