// `@remote-builder-actions/core/step`: what the actions (build-push, bake, configure) use to run a step: the
// run object, their inputs, docker semantics and the post step. Named one by one, so the surface is a choice.

export {type ActionIO} from './adapters/action-io.js';
export {INSTALL_BUILDX_ALTERNATIVE} from './buildx/buildx-unavailable.js';
export {
  hasAttestationType,
  hasDockerExporter,
  hasLocalExporter,
  hasTarExporter,
  resolveAttestationAttrs,
  resolveProvenanceAttrs,
  resolveProvenanceInput
} from './docker/attestations.js';
export {
  type BakeDefinition,
  bakeHasDockerExporter,
  bakePrintArgs,
  isRemoteBakeRef,
  parseBakeDefinition,
  targetHasProvenance,
  targetPlatforms
} from './docker/bake-definition.js';
export {annotateBuildChecks} from './docker/build-checks.js';
export {BuildFiles, type BuildMetadata, type BuildResult, formatMetadata} from './docker/build-result.js';
export {buildkitSupportsAttestations, noDefaultAttestations} from './docker/buildkit-support.js';
export {GitContextRules, GitHubContext} from './docker/github-context.js';
export {parseInputList, untrimmedInput} from './docker/input-list.js';
export {checkPositional} from './docker/positional-arg.js';
export {hasGitAuthTokenSecret, resolveSecretEnv, SecretStore} from './docker/secrets.js';
export {renderTemplate} from './docker/template.js';
export {versionAtLeast} from './docker/version-gate.js';
export {errorMessage, InputError} from './errors.js';
export {type Exec, type ExecOpts, type ExecResult, lastLine} from './exec.js';
export {parseBooleanInput} from './inputs.js';
export {type ProvisionedBuilder} from './lifecycle/profile-provision.js';
export {type Logger, nullLogger} from './logger.js';
export {
  BuildStepInput,
  type BuildStepInputs,
  BuildStepOutput,
  BuildStepState,
  dockerInputReaders,
  readBuildStepInputs,
  readRemoteInputs,
  RemoteInput,
  type RemoteInputs
} from './provisioning/action-inputs.js';
export {BuildCommandError, type BuildContext} from './provisioning/build-attempts.js';
export {BuildStep} from './provisioning/build-step.js';
export {type BuildTarget, targetSupportsAttestations} from './provisioning/build-target.js';
export {cancellation} from './provisioning/cancellation.js';
export {earlyPhase, readStepInputs} from './provisioning/early-failure.js';
export {bakeLoadedBuilds, checkMultiPlatformLoad, checkPlatformNames} from './provisioning/local-checks.js';
export {guardPlatforms} from './provisioning/platform-shortfall.js';
export {runBuildPostStep, runPostStep} from './provisioning/post-step.js';
export {runHook} from './provisioning/run-hook.js';
export {exportInstalledBuildx, newerBuildxHint} from './provisioning/step-buildx.js';
export {checkStepLocally, openStepContext} from './provisioning/step-context.js';
export {type StepDeps} from './provisioning/step-deps.js';
export {StepRun} from './provisioning/step-run.js';
export {buildInputsYaml, readSummaryInputs, type SummaryInputsSpec} from './report/build-inputs.js';
export {EarlyPhase, type RunResult, type TargetResult} from './report/run-record.js';
export {loadRun} from './report/run-recorder.js';
export {MemoryStateStore} from './state.js';
