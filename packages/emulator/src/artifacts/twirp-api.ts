import {type HttpResult, isJsonContentType, json, parseJson} from '../http.js';
import {ArtifactCall} from './artifact-faults.js';
import type {ArtifactStore} from './artifact-store.js';
import {BlobPermission} from './signed-url.js';
import {type BackendIds, type RuntimeTokens, TokenError} from './runtime-token.js';
import {TwirpCode, TwirpProblem} from './twirp-problem.js';

/** The results service's artifact API, as @actions/artifact calls it: `POST <prefix><Method>`, JSON bodies. */
export const TWIRP_PREFIX = '/twirp/github.actions.results.api.v1.ArtifactService/';

/** The Twirp methods, by the name in the path. */
export const TWIRP_CALLS: readonly ArtifactCall[] = [
  ArtifactCall.CreateArtifact,
  ArtifactCall.FinalizeArtifact,
  ArtifactCall.ListArtifacts,
  ArtifactCall.GetSignedArtifactURL
];

/** A Twirp request as the API sees it. */
export interface TwirpRequest {
  authorization?: string;
  contentType?: string;
  body: Buffer;
}

export interface TwirpApiOpts {
  store: ArtifactStore;
  tokens: RuntimeTokens;
  /** Signs a blob path into a URL of the blob endpoint. */
  signBlobUrl: (blobKey: string, permission: BlobPermission) => string;
}

/**
 * TwirpApi answers the ArtifactService methods (github.actions.results.api.v1, the generated
 * `artifact.twirp-client` of @actions/artifact): the bearer runtime token is checked first (401), then that the
 * request's backend ids are the token's (403), then the method's own rules (the store's). Answers use the
 * proto field names, as the service does (the client masks `signed_upload_url`'s signature by that name).
 */
export class TwirpApi {
  readonly #opts: TwirpApiOpts;

  constructor(opts: TwirpApiOpts) {
    this.#opts = opts;
  }

  handle(call: ArtifactCall, req: TwirpRequest): HttpResult {
    try {
      return this.#call(call, req);
    } catch (e) {
      if (e instanceof TwirpProblem) return e.toResult();
      throw e;
    }
  }

  #call(call: ArtifactCall, req: TwirpRequest): HttpResult {
    let token: BackendIds;
    try {
      token = this.#opts.tokens.verify(req.authorization);
    } catch (e) {
      if (e instanceof TokenError) throw new TwirpProblem(TwirpCode.Unauthenticated, e.message);
      throw e;
    }
    if (!isJsonContentType(req.contentType)) {
      throw new TwirpProblem(
        TwirpCode.BadRoute,
        `unexpected Content-Type ${JSON.stringify(req.contentType ?? '')}: send application/json`
      );
    }
    const body = parseJson(req.body);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new TwirpProblem(TwirpCode.InvalidArgument, 'the body must be a JSON object');
    }
    const fields = body as Record<string, unknown>;
    const ids = backendIds(fields, token);
    const {store} = this.#opts;
    switch (call) {
      case ArtifactCall.CreateArtifact: {
        const blobKey = store.create({
          ids,
          name: str(fields, 'name'),
          version: int(fields, 'version'),
          mimeType: optionalStr(fields, 'mime_type'),
          expiresAt: timestamp(fields, 'expires_at')
        });
        return json(200, {ok: true, signed_upload_url: this.#opts.signBlobUrl(blobKey, BlobPermission.Write)});
      }
      case ArtifactCall.FinalizeArtifact: {
        const id = store.finalize(ids, str(fields, 'name'), int(fields, 'size'), optionalStr(fields, 'hash'));
        return json(200, {ok: true, artifact_id: String(id)});
      }
      case ArtifactCall.ListArtifacts: {
        const idFilter = fields.id_filter === undefined ? undefined : int(fields, 'id_filter');
        const artifacts = store.list(ids.workflowRunBackendId, {
          name: optionalStr(fields, 'name_filter'),
          id: idFilter
        });
        return json(200, {
          artifacts: artifacts.map(a => ({
            workflow_run_backend_id: a.workflowRunBackendId,
            workflow_job_run_backend_id: a.workflowJobRunBackendId,
            database_id: String(a.id),
            name: a.name,
            size: String(a.bytes?.length ?? 0),
            created_at: new Date(a.createdAt).toISOString(),
            digest: a.digest
          }))
        });
      }
      case ArtifactCall.GetSignedArtifactURL: {
        const blobKey = store.finalizedBlobKey(ids.workflowRunBackendId, str(fields, 'name'));
        return json(200, {signed_url: this.#opts.signBlobUrl(blobKey, BlobPermission.Read)});
      }
      default:
        throw new TwirpProblem(TwirpCode.BadRoute, `no method ${call}`);
    }
  }
}

/** The request's backend ids, which must be the token's (a job can only write to its own run). */
function backendIds(fields: Record<string, unknown>, token: BackendIds): BackendIds {
  const ids = {
    workflowRunBackendId: str(fields, 'workflow_run_backend_id'),
    workflowJobRunBackendId: str(fields, 'workflow_job_run_backend_id')
  };
  if (
    ids.workflowRunBackendId !== token.workflowRunBackendId ||
    ids.workflowJobRunBackendId !== token.workflowJobRunBackendId
  ) {
    throw new TwirpProblem(TwirpCode.PermissionDenied, "the backend ids are not the runtime token's");
  }
  return ids;
}

function str(fields: Record<string, unknown>, name: string): string {
  const value = fields[name] ?? '';
  if (typeof value !== 'string') throw new TwirpProblem(TwirpCode.InvalidArgument, `${name} must be a string`);
  return value;
}

function optionalStr(fields: Record<string, unknown>, name: string): string | undefined {
  return fields[name] === undefined ? undefined : str(fields, name);
}

/** An int32 or int64 field: a JSON number or, as protobuf's JSON writes int64, a decimal string. */
function int(fields: Record<string, unknown>, name: string): number {
  const value = fields[name] ?? 0;
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
    throw new TwirpProblem(TwirpCode.InvalidArgument, `${name} must be an integer`);
  }
  return n;
}

/** A google.protobuf.Timestamp in JSON: an RFC 3339 string. */
function timestamp(fields: Record<string, unknown>, name: string): number | undefined {
  if (fields[name] === undefined) return undefined;
  const value = str(fields, name);
  const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw new TwirpProblem(TwirpCode.InvalidArgument, `${name} must be an RFC 3339 timestamp`);
  return ms;
}
