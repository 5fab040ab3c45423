// The CI SDK (runners, runner images, stacks): imported by the CLI, never by the actions, so their bundles
// stay without it. The builder calls and the request engine are in the package root.
export {ApiClient} from './api/api-client.js';
export type {ApiClientOpts} from './api/api-client.js';
export {CiClient} from './api/ci-client.js';
export type {CiClientOpts} from './api/ci-client.js';
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
} from './api/runner-readers.js';
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
} from './api/runner-types.js';
export {
  RUNNER_NAME_PATTERN,
  validateCreateRunner,
  validateCreateRunnerImage,
  validatePositiveInteger,
  validateRunnerName,
  validateUpdateRunner,
  validateUpdateRunnerImage
} from './api/runner-validation.js';
