export {ActionRunner, runAction, type ActionRunOpts, type ActionRunResult, type OutputStream} from './action-runner.js';
export {
  JobRunner,
  runMainAndPost,
  type JobRunOpts,
  type JobRunResult,
  type JobStep,
  type PostStepOpts
} from './job-runner.js';
export {formatRunReport, type RunReportOpts} from './run-report.js';
export {CommandFiles, type CommandFileContents, type CommandFileKind} from './command-files.js';
export {parseKeyValueFile, parsePathFile, type KeyValueParse} from './file-command-parser.js';
export {
  parseWorkflowCommand,
  parseWorkflowCommands,
  type Annotation,
  type AnnotationLevel,
  type WorkflowCommand,
  type WorkflowCommands
} from './workflow-command-parser.js';
export {RUNNER_DEFAULTS, buildStepEnv, inputEnvName, jobDirs, type JobDirs, type StepEnvOpts} from './runner-env.js';
export {
  RUNNER_CANCEL_TIMINGS,
  SignalScheduler,
  type CancelTimings,
  type SentSignal,
  type SignalReason,
  type SignalSpec
} from './signal-scheduler.js';
