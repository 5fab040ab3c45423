/**
 * Wire types of the remote-builder service API (spec §2.4, §2.5, §4.4, §4.5).
 * The spec leaves most fields "not shown", so every type keeps the fields it does not name.
 */

/** BuilderInstance is one builder of an assignment; only its id is specified. */
export interface BuilderInstance {
  id: string;
  [k: string]: unknown;
}

/** AssignResponse is the answer to POST /api/v1/builders/assign: one or more assigned (and billed) builders. */
export interface AssignResponse {
  builder_instances: BuilderInstance[];
  [k: string]: unknown;
}

/** BuilderMetadata is how to reach a builder: TCP address plus mutual-TLS material (PEM). Missing fields are ''. */
export interface BuilderMetadata {
  host: string;
  ca: string;
  client_cert: string;
  /** PEM private key: never log it. */
  client_key: string;
  [k: string]: unknown;
}

/** BuilderDetails is the answer to GET /api/v1/builders/{id}/details. Readiness is decided by the caller. */
export interface BuilderDetails {
  id?: string;
  status?: string;
  arch?: string;
  metadata: BuilderMetadata;
  [k: string]: unknown;
}

/** BuilderProfile is one entry of GET /api/v1/builder-profiles; numeric ids are turned into strings. */
export interface BuilderProfile {
  id: string;
  name?: string;
  [k: string]: unknown;
}

/** TeardownResult says whether the builder was already gone (404/410) when we asked to tear it down. */
export interface TeardownResult {
  alreadyGone: boolean;
}
