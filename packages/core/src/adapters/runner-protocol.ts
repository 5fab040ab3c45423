/**
 * The runner's protocol as @actions/core 3.0.1 speaks it, byte for byte: workflow commands on stdout
 * (`::name key=value,…::message`) and file commands appended to GITHUB_OUTPUT / GITHUB_STATE / GITHUB_ENV.
 * Our own because importing @actions/core evaluates undici (~450 KiB) at every start (see actions.ts).
 */
import {randomUUID} from 'node:crypto';
import {appendFileSync, existsSync} from 'node:fs';
import {EOL} from 'node:os';
import type {AnnotationProperties} from '../logger.js';
import {UntrustedBlock} from './untrusted-block.js';

/** A workflow command's message: `%`, CR and LF percent-encoded, as the runner decodes them. */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A workflow command's property value: as escapeData, and `:` and `,`, which separate properties. */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** Properties in the order given; empty values (undefined, '', 0) are left out, as @actions/core does. */
export type CommandProperties = Record<string, string | number | undefined>;

/**
 * The line of a workflow command, without its EOL. Like @actions/core, a properties object with any key
 * adds the space after the name even when every value is empty (`::warning ::m`).
 */
export function workflowCommand(command: string, properties: CommandProperties, message: string): string {
  let line = `::${command}`;
  if (Object.keys(properties).length > 0) {
    const pairs = Object.entries(properties).filter(([, v]) => v);
    line += ` ${pairs.map(([k, v]) => `${k}=${escapeProperty(String(v))}`).join(',')}`;
  }
  return `${line}::${escapeData(message)}`;
}

/** Writes one line of ours to stdout, where the runner reads it: workflow commands resume first. */
export function writeLine(line: string): void {
  untrustedOutput.close();
  process.stdout.write(line + EOL);
}

/**
 * This process's block for text the build or a user's file produced (see UntrustedBlock): printed on stdout
 * with workflow commands suspended. Closed on exit, so a later step's commands count whatever happened.
 */
export const untrustedOutput = new UntrustedBlock({writeLine: line => void process.stdout.write(line + EOL)});
process.on('exit', () => untrustedOutput.close());

/** Writes a workflow command to stdout, where the runner reads it. */
export function issueCommand(command: string, properties: CommandProperties, message: string): void {
  writeLine(workflowCommand(command, properties, message));
}

/** An annotation's properties under the runner's names (`line`, `col`); none when `p` has no key. */
export function annotationProperties(p: AnnotationProperties = {}): CommandProperties {
  if (Object.keys(p).length === 0) return {};
  return {
    title: p.title,
    file: p.file,
    line: p.startLine,
    endLine: p.endLine,
    col: p.startColumn,
    endColumn: p.endColumn
  };
}

/**
 * `name<<DELIMITER`, the value, `DELIMITER`: the heredoc form of a file command, so a value may hold newlines.
 * Throws when the name or the value contains the delimiter (`ghadelimiter_<uuid>` unless given).
 */
export function keyValueMessage(name: string, value: string, delimiter = `ghadelimiter_${randomUUID()}`): string {
  if (name.includes(delimiter)) {
    throw new Error(`Unexpected input: name should not contain the delimiter "${delimiter}"`);
  }
  if (value.includes(delimiter)) {
    throw new Error(`Unexpected input: value should not contain the delimiter "${delimiter}"`);
  }
  return `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}`;
}

export type FileCommand = 'OUTPUT' | 'STATE' | 'ENV';

/**
 * Appends `name`=`value` to the file named by GITHUB_<command>. Without that variable, the older workflow
 * command (`set-output`, `save-state`, `set-env`) that @actions/core falls back to.
 */
export function setKeyValue(command: FileCommand, name: string, value: string): void {
  const file = process.env[`GITHUB_${command}`];
  if (file) {
    if (!existsSync(file)) throw new Error(`Missing file at path: ${file}`);
    appendFileSync(file, `${keyValueMessage(name, value)}${EOL}`, {encoding: 'utf8'});
    return;
  }
  const legacy = {OUTPUT: 'set-output', STATE: 'save-state', ENV: 'set-env'}[command];
  // @actions/core starts set-output on a line of its own.
  if (command === 'OUTPUT') writeLine('');
  issueCommand(legacy, {name}, value);
}
