import type {Logger} from '../../src/logger.js';

export type Level = 'debug' | 'info' | 'untrusted' | 'warning' | 'error';

/** RecordingLogger keeps every line with its level, the groups opened, and every secret registered. */
export class RecordingLogger implements Logger {
  readonly lines: {level: Level; message: string}[] = [];
  readonly groups: string[] = [];
  readonly secrets: string[] = [];

  debug(message: string): void {
    this.lines.push({level: 'debug', message});
  }
  info(message: string): void {
    this.lines.push({level: 'info', message});
  }
  untrusted(message: string): void {
    this.lines.push({level: 'untrusted', message});
  }
  warning(message: string): void {
    this.lines.push({level: 'warning', message});
  }
  error(message: string): void {
    this.lines.push({level: 'error', message});
  }
  group<T>(title: string, fn: () => Promise<T>): Promise<T> {
    this.groups.push(title);
    return fn();
  }
  setSecret(value: string): void {
    this.secrets.push(value);
  }

  /** Messages of one level, in order. */
  messages(level: Level): string[] {
    return this.lines.filter(l => l.level === level).map(l => l.message);
  }

  /** Every message, one per line. */
  get text(): string {
    return this.lines.map(l => l.message).join('\n');
  }
}
