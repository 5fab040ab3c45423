import {parseWorkflowCommand, unescapeData, unescapeLegacy} from './workflow-command-parser.js';
import {SecretMasker} from './secret-masker.js';

/** `::add-mask::` anywhere in a line, any case, with or without properties: the data. */
const ADD_MASK = /::add-mask(?:[ \t][^\r\n]*?)?::(.*)$/i;
/** The older `##[add-mask]`, anywhere in a line. */
const LEGACY_ADD_MASK = /##\[add-mask(?:[ \t][^\]]*)?\](.*)$/i;

/**
 * LogMasker decides what the harness prints of a step's output lines. It registers every `::add-mask::`
 * value (either syntax, any case, also inside a stop-commands block where the runner would print the line
 * as it is) and never prints that line; every other line is printed with every value registered so far
 * masked, in every encoding SecretMasker knows. One LogMasker serves a whole job, as the runner's masker does.
 */
export class LogMasker {
  constructor(readonly masker: SecretMasker = new SecretMasker()) {}

  /** Registers a secret known before the step runs (an `api-key` input, a workflow's `secrets.*`). */
  addSecret(value: string): void {
    this.masker.add(value);
  }

  /** The line to print, masked; undefined for a line that registers a mask. */
  line(text: string): string | undefined {
    const added = maskCommandData(text);
    if (added !== undefined) {
      this.masker.add(added);
      return undefined;
    }
    const command = parseWorkflowCommand(text);
    // The runner masks a stop-commands token longer than 6 characters: it is meant to be unguessable.
    if (command?.name === 'stop-commands' && command.data.length > 6) this.masker.add(command.data);
    return this.masker.mask(text);
  }

  /** A whole log: its add-mask lines dropped (registering their values) and the rest masked. */
  log(text: string): string {
    const lines: string[] = [];
    for (const line of text.split('\n')) {
      const shown = this.line(line.endsWith('\r') ? line.slice(0, -1) : line);
      if (shown !== undefined) lines.push(shown);
    }
    return lines.join('\n');
  }

  /** Any other text the harness prints (outputs, summaries, errors). */
  mask(text: string): string {
    return this.masker.mask(text);
  }
}

/** The value a line registers as a mask, unescaped as the runner unescapes that syntax; undefined when none. */
export function maskCommandData(line: string): string | undefined {
  const modern = ADD_MASK.exec(line);
  if (modern) return unescapeData(modern[1] ?? '');
  const legacy = LEGACY_ADD_MASK.exec(line);
  return legacy ? unescapeLegacy(legacy[1] ?? '') : undefined;
}
