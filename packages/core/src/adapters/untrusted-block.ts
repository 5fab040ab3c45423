import {randomBytes} from 'node:crypto';

/** 128 random bits, hex: no build can guess the line that ends a block. */
export function newStopToken(): string {
  return randomBytes(16).toString('hex');
}

export interface UntrustedBlockOpts {
  /** Writes one line (without its EOL) where the runner reads workflow commands. */
  writeLine: (line: string) => void;
  /** Default: newStopToken. */
  newToken?: () => string;
}

/**
 * UntrustedBlock is the one place that suspends and resumes the runner's workflow commands. Text the build or
 * a user's file produced (buildx output, metadata, bake's definition, history errors, build-check messages) is
 * printed between `::stop-commands::<token>` and `::<token>::`, where the runner acts on no command in either
 * form (`::name::` at a line's start, the legacy `##[name]` anywhere in a line; actions/runner
 * ActionCommandManager). The token is 32 random hex characters, registered as a mask before its first use and
 * never given to a child process, so no printed line can end the block; a line `::<other>::` is data.
 *
 * The block opens at the first untrusted line and stays open across untrusted lines; `close()` ends it, and the
 * runner adapter calls it before each line of ours, so our own annotations, masks, groups and outputs count.
 */
export class UntrustedBlock {
  readonly #writeLine: (line: string) => void;
  readonly #newToken: () => string;
  #token: string | undefined;
  #open = false;

  constructor(opts: UntrustedBlockOpts) {
    this.#writeLine = opts.writeLine;
    this.#newToken = opts.newToken ?? newStopToken;
  }

  /** Prints every line of `text` as data: nothing in it is acted on. */
  print(text: string): void {
    if (!this.#open) {
      if (this.#token === undefined) {
        this.#token = this.#newToken();
        this.#writeLine(`::add-mask::${this.#token}`);
      }
      this.#writeLine(`::stop-commands::${this.#token}`);
      this.#open = true;
    }
    for (const line of text.split('\n')) this.#writeLine(line);
  }

  /** Resumes workflow commands, if suspended; lines after it are ours. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#writeLine(`::${this.#token}::`);
  }

  /** Whether commands are suspended now. */
  get open(): boolean {
    return this.#open;
  }
}
