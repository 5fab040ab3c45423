import {createHash, randomUUID} from 'node:crypto';
import type {HttpResult} from '../http.js';
import {ArtifactCall} from './artifact-faults.js';
import type {ArtifactStore} from './artifact-store.js';
import {BlobProblem} from './blob-problem.js';
import {BlobPermission, type BlobSigner} from './signed-url.js';

/**
 * Where blobs live on the service's server: `/blob/<container>/<key>`. @azure/storage-blob reads an IP host's
 * path as `/<account>/<container>/<blob>`, so the account is `blob` and the container `actions-results`.
 */
export const BLOB_PREFIX = '/blob/actions-results/';

/** A blob request as the API sees it. */
export interface BlobRequest {
  method: string;
  url: URL;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

export interface BlobApiOpts {
  store: ArtifactStore;
  signer: BlobSigner;
}

/** The call a blob request is (for faults), or undefined for a request the storage does not serve. */
export function blobCall(method: string, url: URL): ArtifactCall | undefined {
  const comp = url.searchParams.get('comp');
  if (method === 'PUT') {
    if (comp === 'block') return ArtifactCall.PutBlock;
    if (comp === 'blocklist') return ArtifactCall.PutBlockList;
    if (comp === null) return ArtifactCall.PutBlob;
  }
  if ((method === 'GET' || method === 'HEAD') && comp === null) return ArtifactCall.GetBlob;
  return undefined;
}

/**
 * BlobApi is the block-blob storage behind the signed URLs, for the requests @azure/storage-blob's
 * `BlockBlobClient.uploadStream` sends (Put Block `?comp=block&blockid=…` per chunk, then Put Block List
 * `?comp=blocklist` with `<BlockList><Latest>id</Latest>…</BlockList>` and `x-ms-blob-content-type`), Put Blob
 * (`x-ms-blob-type: BlockBlob`) and Get Blob (with a Content-Disposition naming the artifact, the emulator's
 * choice: the file name a non-zipped download takes). The signed URL is the credential: no token.
 */
export class BlobApi {
  readonly #opts: BlobApiOpts;

  constructor(opts: BlobApiOpts) {
    this.#opts = opts;
  }

  handle(call: ArtifactCall, req: BlobRequest): HttpResult {
    try {
      return this.#call(call, req);
    } catch (e) {
      if (e instanceof BlobProblem) return e.toResult();
      throw e;
    }
  }

  #call(call: ArtifactCall, req: BlobRequest): HttpResult {
    const {store, signer} = this.#opts;
    const key = req.url.pathname.slice(BLOB_PREFIX.length);
    const read = call === ArtifactCall.GetBlob;
    signer.verify(req.url, read ? BlobPermission.Read : BlobPermission.Write);
    if (!read) {
      const length = req.headers['content-length'];
      if (length === undefined) throw new BlobProblem(411, 'MissingContentLengthHeader', 'Content-Length is required.');
      if (Number(length) !== req.body.length) {
        throw new BlobProblem(400, 'InvalidHeaderValue', 'Content-Length does not match the body.');
      }
    }
    switch (call) {
      case ArtifactCall.PutBlock:
        store.stageBlock(key, req.url.searchParams.get('blockid') ?? '', req.body);
        return created(req);
      case ArtifactCall.PutBlockList:
        store.commitBlocks(key, blockList(req.body), req.headers['x-ms-blob-content-type']);
        return created(req, req.body);
      case ArtifactCall.PutBlob:
        if (req.headers['x-ms-blob-type'] !== 'BlockBlob') {
          throw new BlobProblem(400, 'MissingRequiredHeader', 'x-ms-blob-type: BlockBlob is required.');
        }
        store.putBlob(key, req.body, req.headers['x-ms-blob-content-type'] ?? req.headers['content-type']);
        return created(req, req.body);
      default: {
        const blob = store.readBlob(key);
        return {
          status: 200,
          body: req.method === 'HEAD' ? '' : blob.bytes,
          headers: {
            ...standardHeaders(req),
            'content-type': blob.contentType ?? 'application/octet-stream',
            'content-length': String(blob.bytes.length),
            'x-ms-blob-type': 'BlockBlob',
            // The download's file name (@actions/artifact names a non-zipped download after it).
            'content-disposition': `attachment; filename="${blob.name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(blob.name)}`,
            etag: etag(blob.bytes)
          }
        };
      }
    }
  }
}

/** The ids of a Put Block List body, in order (Latest, Committed and Uncommitted alike: all name staged blocks here). */
function blockList(body: Buffer): string[] {
  const xml = body.toString('utf8');
  if (!/<BlockList>[\s\S]*<\/BlockList>|<BlockList\s*\/>/.test(xml)) {
    throw new BlobProblem(400, 'InvalidXmlDocument', 'XML specified is not syntactically valid: no <BlockList>.');
  }
  return [...xml.matchAll(/<(Latest|Committed|Uncommitted)>([^<]*)<\/\1>/g)].map(m => m[2] as string);
}

function created(req: BlobRequest, content?: Buffer): HttpResult {
  const headers: Record<string, string> = {...standardHeaders(req), 'x-ms-request-server-encrypted': 'true'};
  if (content !== undefined) {
    headers.etag = etag(content);
    headers['last-modified'] = new Date().toUTCString();
  }
  return {status: 201, body: '', headers};
}

function standardHeaders(req: BlobRequest): Record<string, string> {
  const headers: Record<string, string> = {'x-ms-request-id': randomUUID(), 'x-ms-version': '2024-11-04'};
  const clientId = req.headers['x-ms-client-request-id'];
  if (clientId !== undefined) headers['x-ms-client-request-id'] = clientId;
  return headers;
}

function etag(bytes: Buffer): string {
  return `"0x${createHash('sha256').update(bytes).digest('hex').slice(0, 16).toUpperCase()}"`;
}
