import {randomUUID} from 'node:crypto';
import {mkdir, readFile, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {parseKeyValueFile, parsePathFile} from './file-command-parser.js';

/** The runner's file commands: env variable, and file name prefix in `_runner_file_commands/`. */
const FILES = {
  output: {variable: 'GITHUB_OUTPUT', prefix: 'set_output_'},
  state: {variable: 'GITHUB_STATE', prefix: 'save_state_'},
  env: {variable: 'GITHUB_ENV', prefix: 'set_env_'},
  path: {variable: 'GITHUB_PATH', prefix: 'add_path_'},
  summary: {variable: 'GITHUB_STEP_SUMMARY', prefix: 'step_summary_'}
} as const;

export type CommandFileKind = keyof typeof FILES;

/** What a step left in its command files. */
export interface CommandFileContents {
  outputs: Record<string, string>;
  state: Record<string, string>;
  exportedEnv: Record<string, string>;
  path: string[];
  summary: string;
  /** The exact text of each file. */
  raw: Record<CommandFileKind, string>;
  /** Malformed files, e.g. `GITHUB_OUTPUT: Invalid value. Matching delimiter not found 'EOF'`. */
  errors: string[];
}

export interface CommandFilesOpts {
  /** RUNNER_TEMP of the job. */
  runnerTemp: string;
}

/**
 * CommandFiles are one step's GITHUB_OUTPUT, GITHUB_STATE, GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY:
 * fresh empty files per step, as actions/runner `FileCommandManager.InitializeFiles` creates them.
 */
export class CommandFiles {
  readonly paths: Record<CommandFileKind, string>;

  constructor(opts: CommandFilesOpts) {
    const dir = path.join(opts.runnerTemp, '_runner_file_commands');
    const suffix = randomUUID();
    this.paths = Object.fromEntries(
      kinds().map(kind => [kind, path.join(dir, `${FILES[kind].prefix}${suffix}`)])
    ) as Record<CommandFileKind, string>;
  }

  /** Creates the empty files. */
  async create(): Promise<void> {
    await mkdir(path.dirname(this.paths.output), {recursive: true});
    await Promise.all(kinds().map(kind => writeFile(this.paths[kind], '')));
  }

  /** GITHUB_OUTPUT=…, GITHUB_STATE=…, … for the step's environment. */
  env(): Record<string, string> {
    return Object.fromEntries(kinds().map(kind => [FILES[kind].variable, this.paths[kind]]));
  }

  /** Reads and parses the files after the step ended; a file the step deleted reads as empty. */
  async read(): Promise<CommandFileContents> {
    const texts = await Promise.all(kinds().map(kind => readFile(this.paths[kind], 'utf8').catch(() => '')));
    const raw = Object.fromEntries(kinds().map((kind, i) => [kind, texts[i]])) as Record<CommandFileKind, string>;
    const errors: string[] = [];
    const keyValues = (kind: 'output' | 'state' | 'env'): Record<string, string> => {
      const parsed = parseKeyValueFile(raw[kind]);
      if (parsed.error) errors.push(`${FILES[kind].variable}: ${parsed.error}`);
      return parsed.values;
    };
    return {
      outputs: keyValues('output'),
      state: keyValues('state'),
      exportedEnv: keyValues('env'),
      path: parsePathFile(raw.path),
      summary: raw.summary,
      raw,
      errors
    };
  }
}

function kinds(): CommandFileKind[] {
  return Object.keys(FILES) as CommandFileKind[];
}
