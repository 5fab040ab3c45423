// One step's output as the runner's log shows it: workflow commands interpreted (groups, annotations,
// debug lines once each), `::add-mask::` values hidden from the line they are registered on.
import {parseWorkflowCommand} from '../harness/index.js';

export interface StepLogOpts {
  /** Receives each rendered line. */
  out: (line: string) => void;
  /** Put before every line, e.g. '  │ '. */
  prefix?: string;
  /** Show `::debug::` lines (as the runner does with ACTIONS_STEP_DEBUG); default true. */
  debug?: boolean;
}

const ANNOTATION_LABELS: Record<string, string> = {error: 'Error', warning: 'Warning', notice: 'Notice'};
/** Commands the runner consumes without printing anything. */
const SILENT = new Set(['add-mask', 'endgroup', 'save-state', 'set-output', 'set-env', 'add-path', 'echo']);

/** StepLog renders the lines of one step (feed it with ActionRunOpts.onLine or a child's output). */
export class StepLog {
  private readonly masks: string[] = [];
  private inGroup = false;
  private stopToken: string | undefined;
  /** The command of the last `[command]…` line printed. */
  private lastCommand: string | undefined;

  constructor(private readonly opts: StepLogOpts) {}

  line(text: string): void {
    if (this.stopToken !== undefined) {
      if (text.trim() === `::${this.stopToken}::`) this.stopToken = undefined;
      else this.print(text);
      return;
    }
    const command = parseWorkflowCommand(text);
    if (!command) {
      this.lastCommand = text.startsWith('[command]') ? text.slice('[command]'.length) : undefined;
      return this.print(text);
    }
    switch (command.name) {
      case 'add-mask':
        if (command.data !== '') this.addMask(command.data);
        return;
      case 'stop-commands':
        this.stopToken = command.data;
        return;
      case 'group':
        this.inGroup = false;
        this.print(`▶ ${command.data}`);
        this.inGroup = true;
        return;
      case 'endgroup':
        this.inGroup = false;
        return;
      case 'debug':
        // NodeExec logs each command it runs at debug level; after the build step's own `[command]` line
        // for the same command that would print it twice.
        if (this.lastCommand !== undefined && command.data === `NodeExec.run: ${this.lastCommand}`) return;
        if (this.opts.debug ?? true) this.printAll(command.data, '##[debug]');
        return;
    }
    const label = ANNOTATION_LABELS[command.name];
    if (label) this.printAll(command.data, `${label}: `);
    else if (!SILENT.has(command.name)) this.print(text);
  }

  private addMask(value: string): void {
    // Like the runner, a multi-line secret is masked line by line too.
    for (const v of [value, ...value.split('\n')]) if (v.trim() !== '' && !this.masks.includes(v)) this.masks.push(v);
    this.masks.sort((a, b) => b.length - a.length);
  }

  private printAll(message: string, label: string): void {
    const [first = '', ...rest] = message.split('\n');
    this.print(label + first);
    for (const line of rest) this.print(' '.repeat(label.length) + line);
  }

  private print(text: string): void {
    const masked = this.masks.reduce((acc, secret) => acc.split(secret).join('***'), text);
    this.opts.out(`${this.opts.prefix ?? ''}${this.inGroup ? '  ' : ''}${masked}`.trimEnd());
  }
}
