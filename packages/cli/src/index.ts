export {COMMAND_GROUPS, runCli, topHelp} from './cli.js';
export type {Command, CommandGroup} from './command.js';
export {CommandContext, type CliDeps, type SignalSource} from './context.js';
export {nodeChildRunner, type ChildExit, type ChildOpts, type ChildRunner, type RunningChild} from './child-runner.js';
export {ExitCode, signalExitCode} from './exit-codes.js';
export {formatJson, formatRecord, formatTable, type TextSink} from './output.js';
export {defaultStateDir, FileStateStore, listStateNames, stateFileOf} from './state-file.js';
export {TerminalLogger, type TerminalLoggerOpts} from './terminal-logger.js';
export {UsageError} from './usage-error.js';
