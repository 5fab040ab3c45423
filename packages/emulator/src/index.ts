export {Emulator, DEFAULT_IDLE_TIMEOUT_MS, type EmulatorOpts} from './emulator.js';
export {type ProfileConfig, type Profile, type HostFormat, type ProfileListItem, type ProfilePage} from './profiles.js';
export {
  BUILDER_SIZES,
  ARCHITECTURES,
  PRICE_PER_MINUTE_USD,
  pricePerMinute,
  type BuilderSize,
  type Architecture,
  type BuilderArch
} from './pricing.js';
export {type LedgerEntry, type TerminationReason, costOf} from './ledger.js';
export {
  type FaultRule,
  type ApiFaultRule,
  type BuilderFaultRule,
  type FaultRoute,
  type BuilderBehaviour,
  type StoredFault,
  parseFaultRule
} from './faults.js';
export {type ApiKey, DEFAULT_API_KEYS, BUILDERS_SCOPE} from './auth.js';
export {CI_ROUTE_NAMES, CI_SCOPES, type CiRouteName} from './ci-route-names.js';
export {DEFAULT_STACKS, type StackConfig, type StackRecord} from './stacks.js';
export {DEFAULT_IMAGES_PER_PAGE, MAX_IMAGES_PER_PAGE, type RunnerImageRecord} from './runner-images.js';
export {
  DEFAULT_POOL_SIZE,
  DEFAULT_STORAGE,
  EMULATOR_ORGANIZATION_ID,
  EMULATOR_VCS_INTEGRATION_ID,
  type RunnerRecord,
  type StockRunnerConfig
} from './runners.js';
export {type RequestRecord, type ApiRouteName} from './request-log.js';
export {type BuilderDetails, type BuilderMetadata, type BuilderStatus} from './builder.js';
export {type EmulatorClock, type Timer, ManualClock, systemClock} from './clock.js';
export {generateBuilderPki, generateCa, type BuilderPki, type CertificateAuthority} from './pki.js';
export {BUILDER_ID_FORMS, type BuilderIdForm, unusedPort} from './builder-registry.js';
export {
  type BuildkitBackend,
  HandshakeOnlyBackend,
  DockerGrpcBackend,
  DOCKERD_GRPC_HIJACK_REQUEST,
  BUILDKIT_APIS,
  type BuildkitApi,
  type BuildkitEmulation
} from './buildkit-backend.js';
export {
  ControlApiBackend,
  DEFAULT_BUILDKIT_VERSION,
  CONTROL_INFO_PATH,
  CONTROL_LIST_WORKERS_PATH,
  type ControlApiBackendOpts
} from './buildkit-control.js';
export {loadEmulatorConfig, parseEmulatorConfig, type EmulatorConfigFile} from './config-file.js';
export {
  parseCliArgs,
  emulatorOptsFromCli,
  runCli,
  formatLedger,
  CliUsageError,
  CLI_USAGE,
  type CliOptions,
  type CliIo
} from './cli.js';
export * from './harness/index.js';
export {BUILDER_FRONTS, isBuilderFront, type BuilderFront} from './faults.js';
export {
  BuilderEndpoint,
  ENDPOINT_FRONTS,
  ENDPOINT_MODES,
  TLS_ALERTS,
  DEFAULT_FRONT_IDLE_MS,
  type EndpointFront,
  type EndpointMode
} from './builder-endpoint.js';
export {ForwardProxy} from './testing/forward-proxy.js';
export {GitHubArtifactService, type ArtifactServiceOpts} from './artifacts/artifact-service.js';
export {ArtifactCall, type ArtifactFaultRule} from './artifacts/artifact-faults.js';
export {type ArtifactRecord} from './artifacts/artifact-store.js';
