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
  unescapeData,
  unescapeLegacy,
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
export {SecretMasker, VALUE_ENCODERS, encodedForms, secretParts, type ValueEncoder} from './secret-masker.js';
export {LogMasker, maskCommandData} from './log-masker.js';
export {SECRET_ENV, SECRET_INPUTS, knownSecrets, type KnownSecretsOpts} from './known-secrets.js';
export {
  REPO_ROOT,
  expand,
  loadActionManifest,
  ourAction,
  ourActionNames,
  readWorkflow,
  type ActionInput,
  type ActionManifest,
  type ExpressionContext,
  type Workflow,
  type WorkflowJob,
  type WorkflowStep
} from './workflow-file.js';
export {
  FAKE_GITHUB_TOKEN,
  UnsupportedWorkflowError,
  planJob,
  runWorkflowJob,
  type JobEvent,
  type JobPlan,
  type JobStepRecord,
  type PlannedStep,
  type WorkflowJobOpts,
  type WorkflowJobResult
} from './workflow-job.js';
