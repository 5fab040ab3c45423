// The service's builder calls and what every client shares; the CI calls (runners, runner images, stacks)
// are in `@remote-builder-actions/core/ci`, so the actions' bundles do not carry them.
export type {BuilderApi} from './builder-api.js';
export {BuildersClient} from './builders-client.js';
export type {BuildersClientOpts, GetBuilderDetailsOpts, ListBuilderProfilesOpts} from './builders-client.js';
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
export {DEFAULT_MAX_PAGES, DEFAULT_PER_PAGE, paginate} from './paginate.js';
export type {Page, PaginateOpts} from './paginate.js';
export {DEFAULT_REQUEST_TIMEOUT_MS, pathParam, RequestEngine} from './request-engine.js';
export type {CallOpts, CallSpec} from './call-spec.js';
export type {ApiInputNames} from './input-names.js';
export type {ClientOpts, RequestEngineOpts, Sent} from './request-engine.js';
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
