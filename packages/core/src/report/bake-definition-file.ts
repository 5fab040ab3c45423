import {closeSync, fstatSync, openSync, readSync, writeFileSync, constants} from 'node:fs';
import {join} from 'node:path';

/**
 * The bake definition for docker's "Bake definition" section travels from main to post as a file in the step's
 * private folder, not in the step state: the state reaches post as an environment variable, which is limited
 * in size and already holds the run record. Main keeps this one file when it removes the folder; post reads it,
 * then removes the folder.
 */
export const BAKE_DEFINITION_FILE = 'bake-definition.json';

/** How much of the file post reads: more could not fit in the summary anyway (SUMMARY_BUDGET_BYTES). */
export const BAKE_DEFINITION_READ_BYTES = 960 * 1024;

/** The definition as post read it: its head, and how many bytes of the file were not read. */
export interface BakeDefinitionText {
  text: string;
  unreadBytes: number;
}

/** Main: writes `buildx bake --print`'s output (mode 0600) into the step's private folder. */
export function writeBakeDefinition(dir: string, printed: string): void {
  writeFileSync(join(dir, BAKE_DEFINITION_FILE), printed, {mode: 0o600});
}

/**
 * Post: the head of the definition main left in `dir` (the folder main saved, already checked by post), at most
 * `maxBytes`; undefined when there is none (not a bake, no summary, main ended before --print). A symbolic link
 * is not followed: the file must be main's own.
 */
export function readBakeDefinition(dir: string, maxBytes = BAKE_DEFINITION_READ_BYTES): BakeDefinitionText | undefined {
  let fd: number;
  try {
    fd = openSync(join(dir, BAKE_DEFINITION_FILE), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    const buf = Buffer.alloc(Math.min(stat.size, maxBytes));
    const read = readSync(fd, buf, 0, buf.length, 0);
    // Streaming decode: a read cut inside a UTF-8 sequence ends before it.
    const text = new TextDecoder().decode(buf.subarray(0, read), {stream: true});
    return {text, unreadBytes: stat.size - Buffer.byteLength(text, 'utf8')};
  } finally {
    closeSync(fd);
  }
}
