import type {Exec, ExecOpts, ExecResult} from '../../src/exec.js';

export interface ExecCall {
  command: string;
  args: string[];
  opts: ExecOpts;
}

/** Answers one call: a result (missing fields default to success) or a promise of one. */
export type ExecHandler = (call: ExecCall) => Partial<ExecResult> | Promise<Partial<ExecResult>>;

/** FakeExec records every call and answers through `handler` (default: exit 0, no output). */
export class FakeExec implements Exec {
  readonly calls: ExecCall[] = [];
  handler: ExecHandler;

  constructor(handler: ExecHandler = () => ({})) {
    this.handler = handler;
  }

  async run(command: string, args: string[], opts: ExecOpts = {}): Promise<ExecResult> {
    const call = {command, args, opts};
    this.calls.push(call);
    const res = await this.handler(call);
    return {exitCode: 0, stdout: '', stderr: '', ...res};
  }

  /** argv of every call, without the command. */
  get argvs(): string[][] {
    return this.calls.map(c => c.args);
  }
}

/** `buildx <sub>` of an argv, e.g. 'create', 'inspect', 'rm'. */
export function subcommand(args: string[]): string {
  return args[1] ?? '';
}
