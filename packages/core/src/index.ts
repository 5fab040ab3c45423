// `@remote-builder-actions/core`: the SDK: the service's API client (BuildersClient; CiClient is at ./ci), the
// builder lifecycle (assign, readiness, certificates, buildx, teardown) and what the CLI and the emulator build on.
// Named one by one, so the surface is a choice; the actions' step API is `@remote-builder-actions/core/step`.

export {type ActionIO} from './adapters/action-io.js';
export {bodyExcerpt, MAX_EXCERPT_CHARS} from './api/body-excerpt.js';
export {type BuilderApi} from './api/builder-api.js';
export {
  BuildersClient,
  type BuildersClientOpts,
  type GetBuilderDetailsOpts,
  type ListBuilderProfilesOpts
} from './api/builders-client.js';
export {type CallOpts, type CallSpec} from './api/call-spec.js';
export {NodeHttpTransport, type NodeHttpTransportOpts} from './api/http-transport.js';
export {type HttpMethod, type HttpRequest, type HttpResponse, type HttpTransport} from './api/http-types.js';
export {type ApiInputNames} from './api/input-names.js';
export {DEFAULT_MAX_PAGES, DEFAULT_PER_PAGE, type Page, paginate, type PaginateOpts} from './api/paginate.js';
export {
  type ClientOpts,
  DEFAULT_REQUEST_TIMEOUT_MS,
  pathParam,
  RequestEngine,
  type RequestEngineOpts,
  type Sent
} from './api/request-engine.js';
export {
  PROFILE_PAGE_KEYS,
  type ProfilesPage,
  readAssignResponse,
  readBuilderDetails,
  readProfilesPage,
  type ReadResult
} from './api/response-readers.js';
export {
  type AttemptFailure,
  DEFAULT_RETRY_POLICY,
  parseRetryAfterMs,
  RetryPolicy,
  type RetryPolicyInit,
  type RetryPolicyOpts
} from './api/retry-policy.js';
export {
  type AssignResponse,
  type BuilderDetails,
  type BuilderInstance,
  type BuilderMetadata,
  type BuilderProfile,
  type TeardownResult
} from './api/types.js';
export {parseBuilderSize} from './billing/builder-size.js';
export {BUILDER_SIZES, type BuilderSize} from './billing/price-table.js';
export {buildxAssetName, buildxPlatform} from './buildx-install/buildx-platform.js';
export {BuildxError} from './buildx/buildx-error.js';
export {resolveBinary} from './buildx/buildx-plugin.js';
export {Buildx} from './buildx/buildx.js';
export {BuilderNodesDownError} from './buildx/nodes-down.js';
export {childEnv} from './child-env.js';
export {type Clock} from './clock.js';
export {resolveCredentials} from './credentials.js';
export {type BuildFailureKind, classifyBuildFailure} from './docker/build-failure.js';
export {parseCacheReport} from './docker/cache-report.js';
export {versionAtLeast} from './docker/version-gate.js';
export {ApiError, errorMessage, InputError} from './errors.js';
export {type Exec, type ExecResult, KILL_GRACE_MS, NodeExec} from './exec.js';
export {Env, MAX_TIMEOUT_MS, parseProfileNames, resolveApiUrl} from './inputs.js';
export {type ClosableBuilderApi, createBuilderApiClient} from './lifecycle/builder-api-client.js';
export {parseBuilderEndpoint} from './lifecycle/builder-endpoint.js';
export {goneAnswerOf} from './lifecycle/builder-health.js';
export {BUILDER_NAME, newBuilderName} from './lifecycle/builder-name.js';
export {grpcBuildkitInfo} from './lifecycle/buildkit-info.js';
export {CancelledError} from './lifecycle/cancelled-error.js';
export {lostStatusOf} from './lifecycle/details-verdict.js';
export {type ProvisionedBuilder} from './lifecycle/profile-provision.js';
export {type PollSchedule} from './lifecycle/readiness-wait.js';
export {teardownLimits} from './lifecycle/teardown-limits.js';
export {type TlsProbe} from './lifecycle/tls-probe.js';
export {type Logger} from './logger.js';
export {TransportError, type TransportErrorOpts} from './net/transport-error.js';
export {assignTimeoutFor} from './provisioning/builder-api-factory.js';
export {CommandNotFoundError} from './provisioning/local-checks.js';
export {postCleanup, type PostCleanupResult} from './provisioning/post-cleanup.js';
export {StepRun} from './provisioning/step-run.js';
export {billBuilder, totalBill} from './report/builder-bill.js';
export {type RunRecord} from './report/run-record.js';
export {closeRun, loadRun} from './report/run-recorder.js';
export {formatDuration} from './report/time-format.js';
export {type BuilderState, loadBuilderState, MemoryStateStore, pendingBuilderIds, type StateStore} from './state.js';
export {PROJECT_VERSION} from './version.js';
