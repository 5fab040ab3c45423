import {EventEmitter} from 'node:events';
import type {ActionIO} from '../../src/adapters/action-io.js';
import {MemoryStateStore} from '../../src/state.js';
import {RecordingLogger} from './recording-logger.js';

/** FakeActionIO: inputs from a map, everything written is recorded. */
export class FakeActionIO implements ActionIO {
  readonly logger = new RecordingLogger();
  readonly state = new MemoryStateStore();
  readonly outputs = new Map<string, string>();
  readonly exported = new Map<string, string>();
  readonly markdownSummaries: string[] = [];
  readonly failures: string[] = [];

  constructor(
    readonly inputs: Record<string, string> = {},
    readonly env: NodeJS.ProcessEnv = {}
  ) {}

  getInput(name: string): string {
    return (this.inputs[name] ?? '').trim();
  }
  setOutput(name: string, value: string): void {
    this.outputs.set(name, value);
  }
  exportVariable(name: string, value: string): void {
    this.exported.set(name, value);
  }
  async writeMarkdownSummary(markdown: string): Promise<void> {
    this.markdownSummaries.push(markdown);
  }
  setFailed(message: string): void {
    this.failures.push(message);
  }
}

/** FakeSignals stands in for `process` as a source of SIGINT/SIGTERM. */
export class FakeSignals extends EventEmitter {
  /** Delivers a signal the way process does (the listener gets the signal name). */
  send(sig: 'SIGINT' | 'SIGTERM'): void {
    this.emit(sig, sig);
  }

  /** The shape runHook expects. */
  get asProcess(): Pick<NodeJS.Process, 'on' | 'off'> {
    return this as unknown as Pick<NodeJS.Process, 'on' | 'off'>;
  }
}
