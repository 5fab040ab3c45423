import {createHash, randomUUID} from 'node:crypto';
import type {EmulatorClock} from '../clock.js';
import {BlobProblem} from './blob-problem.js';
import type {BackendIds} from './runtime-token.js';
import {TwirpCode, TwirpProblem} from './twirp-problem.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Characters the service refuses in an artifact name (@actions/artifact checks the same before sending). */
const INVALID_NAME_CHARS = ['"', ':', '<', '>', '|', '*', '?', '\r', '\n', '\\', '/'];

/** One artifact as tests read it back. */
export interface ArtifactRecord {
  /** The artifact id FinalizeArtifact answered (the `database_id` of ListArtifacts). */
  id: number;
  name: string;
  workflowRunBackendId: string;
  workflowJobRunBackendId: string;
  /** CreateArtifact's `mime_type` (a non-zipped upload sends its file's type); undefined for a zip. */
  mimeType?: string;
  /** CreateArtifact's `version` (7 from @actions/artifact 2.2+). */
  version: number;
  createdAt: number;
  expiresAt: number;
  /** Whole days from creation to expiry, rounded (the default retention when CreateArtifact sent no `expires_at`). */
  retentionDays: number;
  /** True once FinalizeArtifact succeeded; only finalized artifacts are listed. */
  finalized: boolean;
  /** The committed blob (undefined before Put Block List or Put Blob). */
  bytes?: Buffer;
  /** The blob's Content-Type as uploaded (`x-ms-blob-content-type`). */
  contentType?: string;
  /** `sha256:<hex>` of the committed blob. */
  digest?: string;
}

interface Entry extends ArtifactRecord {
  /** The blob's key in the signed URL. */
  blobKey: string;
  /** Staged, uncommitted blocks by block id. */
  blocks: Map<string, Buffer>;
}

export interface CreateArtifactInput {
  ids: BackendIds;
  name: string;
  version: number;
  mimeType?: string;
  /** Epoch ms; undefined for the default retention. */
  expiresAt?: number;
}

export interface ArtifactStoreOpts {
  clock: EmulatorClock;
  /** Retention when CreateArtifact sends no `expires_at`; default 90 days (GitHub's default for a public repository). */
  defaultRetentionDays?: number;
  /** Longest retention accepted; default 90 days (public repositories; private ones may allow up to 400). */
  maxRetentionDays?: number;
}

/**
 * ArtifactStore holds a run's artifacts as GitHub's results service keeps them: created (name reserved in the
 * run), uploaded to a blob (staged blocks, then committed), finalized (size and hash checked, then listed).
 */
export class ArtifactStore {
  readonly #clock: EmulatorClock;
  readonly #defaultDays: number;
  readonly #maxDays: number;
  readonly #entries: Entry[] = [];
  #nextId = 1001;

  constructor(opts: ArtifactStoreOpts) {
    this.#clock = opts.clock;
    this.#maxDays = opts.maxRetentionDays ?? 90;
    this.#defaultDays = Math.min(opts.defaultRetentionDays ?? 90, this.#maxDays);
  }

  /** CreateArtifact: reserves the name in the run; returns the blob key of its upload URL. */
  create(input: CreateArtifactInput): string {
    const {name} = input;
    if (name === '') throw new TwirpProblem(TwirpCode.InvalidArgument, 'name is required');
    const bad = INVALID_NAME_CHARS.find(c => name.includes(c));
    if (bad !== undefined) {
      throw new TwirpProblem(TwirpCode.InvalidArgument, `name ${JSON.stringify(name)} contains ${JSON.stringify(bad)}`);
    }
    if (!Number.isInteger(input.version) || input.version < 4) {
      throw new TwirpProblem(TwirpCode.InvalidArgument, `version ${input.version} is not supported (4 or later)`);
    }
    const now = this.#clock.now();
    const expiresAt = input.expiresAt ?? now + this.#defaultDays * DAY_MS;
    if (expiresAt <= now) throw new TwirpProblem(TwirpCode.InvalidArgument, 'expires_at is in the past');
    // The client computes expiry on its own clock: a few minutes of skew beyond the limit are tolerated.
    if (expiresAt > now + this.#maxDays * DAY_MS + 10 * 60_000) {
      throw new TwirpProblem(TwirpCode.InvalidArgument, `expires_at is more than ${this.#maxDays} days away`);
    }
    if (this.#find(input.ids.workflowRunBackendId, name)) {
      throw new TwirpProblem(TwirpCode.AlreadyExists, 'an artifact with this name already exists on the workflow run');
    }
    const entry: Entry = {
      id: this.#nextId++,
      name,
      workflowRunBackendId: input.ids.workflowRunBackendId,
      workflowJobRunBackendId: input.ids.workflowJobRunBackendId,
      mimeType: input.mimeType,
      version: input.version,
      createdAt: now,
      expiresAt,
      retentionDays: Math.round((expiresAt - now) / DAY_MS),
      finalized: false,
      blobKey: randomUUID(),
      blocks: new Map()
    };
    this.#entries.push(entry);
    return entry.blobKey;
  }

  /** Put Block: stages one block of a pending artifact's blob. */
  stageBlock(blobKey: string, blockId: string, bytes: Buffer): void {
    const entry = this.#writable(blobKey);
    if (blockId === '' || Buffer.from(blockId, 'base64').toString('base64') !== blockId) {
      throw new BlobProblem(400, 'InvalidQueryParameterValue', 'blockid must be a base64 string');
    }
    entry.blocks.set(blockId, bytes);
  }

  /** Put Block List: the blob becomes the listed blocks, in order; the staged blocks are dropped. */
  commitBlocks(blobKey: string, blockIds: string[], contentType: string | undefined): void {
    const entry = this.#writable(blobKey);
    const missing = blockIds.find(id => !entry.blocks.has(id));
    if (missing !== undefined) {
      throw new BlobProblem(
        400,
        'InvalidBlockList',
        `The specified block list is invalid: block ${missing} was not staged`
      );
    }
    this.#commit(entry, Buffer.concat(blockIds.map(id => entry.blocks.get(id) as Buffer)), contentType);
  }

  /** Put Blob: the whole blob in one request. */
  putBlob(blobKey: string, bytes: Buffer, contentType: string | undefined): void {
    this.#commit(this.#writable(blobKey), bytes, contentType);
  }

  /** Get Blob: the committed bytes of a finalized artifact, with its name. */
  readBlob(blobKey: string): {name: string; bytes: Buffer; contentType?: string} {
    const entry = this.#entries.find(e => e.blobKey === blobKey);
    if (!entry?.finalized || entry.bytes === undefined) {
      throw new BlobProblem(404, 'BlobNotFound', 'The specified blob does not exist.');
    }
    return {name: entry.name, bytes: entry.bytes, contentType: entry.contentType};
  }

  /** FinalizeArtifact: checks the declared size and hash against the blob; returns the artifact id. */
  finalize(ids: BackendIds, name: string, size: number, hash: string | undefined): number {
    const entry = this.#find(ids.workflowRunBackendId, name);
    if (!entry)
      throw new TwirpProblem(TwirpCode.NotFound, `artifact ${JSON.stringify(name)} was not created in this run`);
    if (entry.finalized)
      throw new TwirpProblem(TwirpCode.FailedPrecondition, `artifact ${JSON.stringify(name)} is already finalized`);
    if (entry.bytes === undefined) {
      throw new TwirpProblem(TwirpCode.FailedPrecondition, `nothing was uploaded for artifact ${JSON.stringify(name)}`);
    }
    if (size !== entry.bytes.length) {
      throw new TwirpProblem(
        TwirpCode.InvalidArgument,
        `size ${size} does not match the ${entry.bytes.length} bytes uploaded`
      );
    }
    if (hash !== undefined && hash !== entry.digest) {
      throw new TwirpProblem(TwirpCode.InvalidArgument, `hash ${hash} does not match the upload's ${entry.digest}`);
    }
    entry.finalized = true;
    entry.blocks.clear();
    return entry.id;
  }

  /** ListArtifacts: the run's finalized artifacts, optionally one name or id. */
  list(runBackendId: string, filter: {name?: string; id?: number} = {}): ArtifactRecord[] {
    return this.#entries
      .filter(e => e.finalized && e.workflowRunBackendId === runBackendId)
      .filter(
        e => (filter.name === undefined || e.name === filter.name) && (filter.id === undefined || e.id === filter.id)
      )
      .map(record);
  }

  /** GetSignedArtifactURL: the blob key of a finalized artifact. */
  finalizedBlobKey(runBackendId: string, name: string): string {
    const entry = this.#find(runBackendId, name);
    if (!entry?.finalized) throw new TwirpProblem(TwirpCode.NotFound, `artifact ${JSON.stringify(name)} not found`);
    return entry.blobKey;
  }

  /** Every artifact, pending ones included, in creation order. */
  all(): ArtifactRecord[] {
    return this.#entries.map(record);
  }

  #find(runBackendId: string, name: string): Entry | undefined {
    return this.#entries.find(e => e.workflowRunBackendId === runBackendId && e.name === name);
  }

  #writable(blobKey: string): Entry {
    const entry = this.#entries.find(e => e.blobKey === blobKey);
    if (!entry) throw new BlobProblem(404, 'ContainerNotFound', 'The specified container does not exist.');
    if (entry.finalized) {
      throw new BlobProblem(
        403,
        'AuthorizationPermissionMismatch',
        'The artifact is finalized: its blob is read-only.'
      );
    }
    return entry;
  }

  #commit(entry: Entry, bytes: Buffer, contentType: string | undefined): void {
    entry.bytes = bytes;
    entry.contentType = contentType;
    entry.digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    entry.blocks.clear();
  }
}

function record(entry: Entry): ArtifactRecord {
  const {blobKey: _key, blocks: _blocks, ...rest} = entry;
  return {...rest};
}
