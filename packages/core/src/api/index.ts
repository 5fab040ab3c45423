export {
  ApiClient,
  DEFAULT_PER_PAGE,
  DEFAULT_REQUEST_TIMEOUT_MS,
  MAX_PROFILE_PAGES,
  MAX_RUNNER_IMAGE_PAGES
} from './api-client.js';
export type {ApiClientOpts, CallOpts, GetBuilderDetailsOpts, ListBuilderProfilesOpts} from './api-client.js';
export {bodyExcerpt, MAX_EXCERPT_CHARS} from './body-excerpt.js';
export {NodeHttpTransport, TransportError} from './http-transport.js';
export type {
  HttpMethod,
  HttpRequest,
  HttpResponse,
  HttpTransport,
  NodeHttpTransportOpts,
  TransportErrorOpts
} from './http-transport.js';
export {PROFILE_PAGE_KEYS, readAssignResponse, readBuilderDetails, readProfilesPage} from './response-readers.js';
export type {ProfilesPage, ReadResult} from './response-readers.js';
export {DEFAULT_RETRY_POLICY, parseRetryAfterMs, RetryPolicy} from './retry-policy.js';
export type {AttemptFailure, RetryPolicyInit, RetryPolicyOpts} from './retry-policy.js';
export type {
  AssignResponse,
  BuilderDetails,
  BuilderInstance,
  BuilderMetadata,
  BuilderProfile,
  TeardownResult
} from './types.js';
export {
  readRunner,
  readRunnerImage,
  readRunnerImagePage,
  readRunnerList,
  readStackList,
  RUNNER_IMAGE_LIST_KEYS,
  RUNNER_IMAGE_RECORD_KEYS,
  RUNNER_LIST_KEYS,
  RUNNER_RECORD_KEYS,
  STACK_LIST_KEYS
} from './runner-readers.js';
export type {
  CreateRunnerImageRequest,
  CreateRunnerRequest,
  ListRunnerImagesQuery,
  ListRunnersQuery,
  ListStacksQuery,
  Runner,
  RunnerByocSku,
  RunnerConfiguration,
  RunnerImage,
  RunnerImageByocAmi,
  RunnerImagePage,
  RunnerImageServiceImage,
  RunnerImageSettings,
  RunnerStorage,
  Stack,
  UpdateRunnerImageRequest,
  UpdateRunnerRequest
} from './runner-types.js';
export {
  RUNNER_NAME_PATTERN,
  validateCreateRunner,
  validateCreateRunnerImage,
  validatePositiveInteger,
  validateRunnerName,
  validateUpdateRunner,
  validateUpdateRunnerImage
} from './runner-validation.js';
