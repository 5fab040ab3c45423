/**
 * Parser for workflow commands in a step's output, after actions/runner `ActionCommand` (`TryParseV2` for
 * `::name key=value,…::data`, then `TryParse` for the older `##[name key=value;…]data`) and
 * `ActionCommandManager` (command names ignore case; stop-commands):
 * https://github.com/actions/runner/blob/main/src/Runner.Common/ActionCommand.cs
 */

export type AnnotationLevel = 'error' | 'warning' | 'notice' | 'debug';

/** One `::error::`, `::warning::`, `::notice::` or `::debug::` command. */
export interface Annotation {
  level: AnnotationLevel;
  message: string;
  /** `file`, `line`, `title`, … as given on the command; empty when there were none. */
  properties: Record<string, string>;
}

/** What the runner would record from a step's output lines. */
export interface WorkflowCommands {
  annotations: Annotation[];
  /** Values registered with `::add-mask::`, in order. */
  masks: string[];
  /**
   * `save-state` from the log (`::save-state name=k::v`, `##[save-state name=k;]v`): deprecated, still honoured.
   * The runner applies GITHUB_STATE after it, so a key in the file wins.
   */
  state: Record<string, string>;
  /** `set-output` from the log, likewise; GITHUB_OUTPUT wins. */
  outputs: Record<string, string>;
}

/** A parsed command: its name (lower case: the runner ignores case), its properties and its data, all unescaped. */
export interface WorkflowCommand {
  name: string;
  properties: Record<string, string>;
  data: string;
}

const LEVELS = new Set<string>(['error', 'warning', 'notice', 'debug']);

/** Parses one output line as a command (either syntax), or returns undefined if it is not one. */
export function parseWorkflowCommand(line: string): WorkflowCommand | undefined {
  return parseV2(line) ?? parseLegacy(line);
}

/** `::name k=v,…::data`, after leading whitespace only. */
function parseV2(line: string): WorkflowCommand | undefined {
  const message = line.trimStart();
  if (!message.startsWith('::')) return undefined;
  const end = message.indexOf('::', 2);
  if (end < 0) return undefined;
  const info = message.slice(2, end);
  const space = info.indexOf(' ');
  const name = (space < 0 ? info : info.slice(0, space)).toLowerCase();
  if (name === '') return undefined;
  const properties = space >= 0 ? parseProperties(info.slice(space + 1).trim(), ',', unescapeProperty) : {};
  return {name, properties, data: unescapeData(message.slice(end + 2))};
}

/** `##[name k=v;…]data`, anywhere in the line (the runner looks for the prefix with IndexOf). */
function parseLegacy(line: string): WorkflowCommand | undefined {
  const start = line.indexOf('##[');
  if (start < 0) return undefined;
  const end = line.indexOf(']', start);
  if (end < 0) return undefined;
  const info = line.slice(start + 3, end);
  const space = info.indexOf(' ');
  const name = (space < 0 ? info : info.slice(0, space)).toLowerCase();
  if (name === '') return undefined;
  const properties = space >= 0 ? parseProperties(info.slice(space + 1), ';', unescapeLegacy) : {};
  return {name, properties, data: unescapeLegacy(line.slice(end + 1))};
}

function parseProperties(text: string, separator: string, unescape: (s: string) => string): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const pair of text.split(separator)) {
    const equals = pair.indexOf('=');
    if (equals > 0 && equals < pair.length - 1) properties[pair.slice(0, equals)] = unescape(pair.slice(equals + 1));
  }
  return properties;
}

/**
 * Collects annotations, masks, state and outputs from output lines, as the runner acts on them. Honours `::stop-commands::TOKEN`: lines are not
 * processed as commands until a command named TOKEN (any case, as the runner compares it).
 */
export function parseWorkflowCommands(lines: Iterable<string>): WorkflowCommands {
  const result: WorkflowCommands = {annotations: [], masks: [], state: {}, outputs: {}};
  let resumeToken: string | undefined;
  for (const line of lines) {
    const command = parseWorkflowCommand(line);
    if (resumeToken !== undefined) {
      if (command?.name === resumeToken) resumeToken = undefined;
      continue;
    }
    if (!command) continue;
    if (command.name === 'stop-commands' && command.data !== '') {
      resumeToken = command.data.toLowerCase();
    } else if (command.name === 'add-mask') {
      if (command.data.trim() !== '') result.masks.push(command.data);
    } else if (command.name === 'save-state' || command.name === 'set-output') {
      const name = command.properties['name'];
      if (name) (command.name === 'save-state' ? result.state : result.outputs)[name] = command.data;
    } else if (LEVELS.has(command.name)) {
      result.annotations.push({
        level: command.name as AnnotationLevel,
        message: command.data,
        properties: command.properties
      });
    }
  }
  return result;
}

// The runner replaces the escapes in this order, so an escaped '%' (%25) is never read twice.
/** A `::name::data` command's data, unescaped: %0D, %0A, %25. */
export function unescapeData(s: string): string {
  return s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
}

function unescapeProperty(s: string): string {
  return s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
}

/** A `##[name]data` command's data or property, unescaped: %3B, %0D, %0A, %5D, %25. */
export function unescapeLegacy(s: string): string {
  return s.replace(/%3B/g, ';').replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%5D/g, ']').replace(/%25/g, '%');
}
