/**
 * Parser for workflow commands (`::name key=value,…::data`) in a step's output, after actions/runner
 * `ActionCommand.TryParseV2` and `ActionCommandManager` (stop-commands):
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
}

/** A parsed command: its name, its properties and its data, all unescaped. */
export interface WorkflowCommand {
  name: string;
  properties: Record<string, string>;
  data: string;
}

const LEVELS = new Set<string>(['error', 'warning', 'notice', 'debug']);

/** Parses one output line as a command, or returns undefined if it is not one. */
export function parseWorkflowCommand(line: string): WorkflowCommand | undefined {
  const message = line.trimStart();
  if (!message.startsWith('::')) return undefined;
  const end = message.indexOf('::', 2);
  if (end < 0) return undefined;
  const info = message.slice(2, end);
  const space = info.indexOf(' ');
  const name = space < 0 ? info : info.slice(0, space);
  if (name === '') return undefined;
  const properties: Record<string, string> = {};
  if (space >= 0) {
    for (const pair of info
      .slice(space + 1)
      .trim()
      .split(',')) {
      const equals = pair.indexOf('=');
      if (equals > 0 && equals < pair.length - 1)
        properties[pair.slice(0, equals)] = unescapeProperty(pair.slice(equals + 1));
    }
  }
  return {name, properties, data: unescapeData(message.slice(end + 2))};
}

/**
 * Collects annotations and masks from output lines. Honours `::stop-commands::TOKEN`: lines are not
 * processed as commands until one equal to `::TOKEN::`.
 */
export function parseWorkflowCommands(lines: Iterable<string>): WorkflowCommands {
  const result: WorkflowCommands = {annotations: [], masks: []};
  let resumeToken: string | undefined;
  for (const line of lines) {
    if (resumeToken !== undefined) {
      if (line.trim() === `::${resumeToken}::`) resumeToken = undefined;
      continue;
    }
    const command = parseWorkflowCommand(line);
    if (!command) continue;
    if (command.name === 'stop-commands' && command.data !== '') {
      resumeToken = command.data;
    } else if (command.name === 'add-mask') {
      if (command.data.trim() !== '') result.masks.push(command.data);
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

function unescapeData(s: string): string {
  return s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
}

function unescapeProperty(s: string): string {
  return s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
}
