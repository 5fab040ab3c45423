import {createHash} from 'node:crypto';
import {describe, expect, test} from '@jest/globals';
import {ArtifactStore} from '../../src/artifacts/artifact-store.js';
import {BlobProblem} from '../../src/artifacts/blob-problem.js';
import {TwirpCode, TwirpProblem} from '../../src/artifacts/twirp-problem.js';
import {ManualClock} from '../../src/clock.js';

const DAY = 24 * 60 * 60 * 1000;
const IDS = {workflowRunBackendId: 'run-1', workflowJobRunBackendId: 'job-1'};

function store(): {store: ArtifactStore; clock: ManualClock} {
  const clock = new ManualClock({now: Date.UTC(2026, 10, 1)});
  return {store: new ArtifactStore({clock, defaultRetentionDays: 30, maxRetentionDays: 90}), clock};
}

function twirp(fn: () => unknown): {code: TwirpCode; status: number; message: string} {
  try {
    fn();
  } catch (e) {
    if (e instanceof TwirpProblem) return {code: e.code, status: e.status, message: e.message};
    throw e;
  }
  throw new Error('no TwirpProblem thrown');
}

function blob(fn: () => unknown): {status: number; code: string} {
  try {
    fn();
  } catch (e) {
    if (e instanceof BlobProblem) return {status: e.status, code: e.code};
    throw e;
  }
  throw new Error('no BlobProblem thrown');
}

const sha = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('ArtifactStore: CreateArtifact', () => {
  test.each([
    ['an empty name', {name: ''}, 'name is required'],
    ['a name with a slash', {name: 'a/b'}, 'contains "/"'],
    ['a version before 4', {version: 3}, 'version 3 is not supported'],
    ['an expiry in the past', {expiresAt: -1}, 'expires_at is in the past'],
    ['more than the longest retention', {expiresAt: 91 * DAY}, 'more than 90 days away']
  ])(
    'refuses %s (400 invalid_argument)',
    (_what, change: {name?: string; version?: number; expiresAt?: number}, message) => {
      const {store: s, clock} = store();
      const {expiresAt, ...rest} = change;
      const input = {
        ids: IDS,
        name: 'a.dockerbuild',
        version: 7,
        ...rest,
        expiresAt: expiresAt === undefined ? undefined : clock.now() + expiresAt
      };
      expect(twirp(() => s.create(input))).toEqual({
        code: TwirpCode.InvalidArgument,
        status: 400,
        message: expect.stringContaining(message)
      });
    }
  );

  test('keeps the retention asked for, or the default', () => {
    const {store: s, clock} = store();
    s.create({ids: IDS, name: 'asked', version: 7, expiresAt: clock.now() + 7 * DAY});
    s.create({ids: IDS, name: 'default', version: 7});
    expect(s.all().map(a => [a.name, a.retentionDays])).toEqual([
      ['asked', 7],
      ['default', 30]
    ]);
  });

  test('a name is taken once per run (409 already_exists), in any job; another run may use it', () => {
    const {store: s} = store();
    s.create({ids: IDS, name: 'a', version: 7});
    expect(twirp(() => s.create({ids: {...IDS, workflowJobRunBackendId: 'job-2'}, name: 'a', version: 7}))).toEqual({
      code: TwirpCode.AlreadyExists,
      status: 409,
      message: 'an artifact with this name already exists on the workflow run'
    });
    expect(() => s.create({ids: {...IDS, workflowRunBackendId: 'run-2'}, name: 'a', version: 7})).not.toThrow();
  });
});

describe('ArtifactStore: blob and FinalizeArtifact', () => {
  test('committed blocks make the blob in the listed order; finalize checks size and hash, then lists it', () => {
    const {store: s} = store();
    const key = s.create({ids: IDS, name: 'a', version: 7, mimeType: 'application/octet-stream'});
    s.stageBlock(key, b64('2'), Buffer.from('world'));
    s.stageBlock(key, b64('1'), Buffer.from('hello '));
    s.commitBlocks(key, [b64('1'), b64('2')], 'application/octet-stream');
    const bytes = Buffer.from('hello world');

    expect(twirp(() => s.finalize(IDS, 'a', 10, undefined))).toMatchObject({code: TwirpCode.InvalidArgument});
    expect(twirp(() => s.finalize(IDS, 'a', 11, 'sha256:00'))).toMatchObject({code: TwirpCode.InvalidArgument});
    expect(s.list('run-1')).toEqual([]);
    const id = s.finalize(IDS, 'a', 11, sha(bytes));

    expect(s.list('run-1')).toEqual([expect.objectContaining({id, name: 'a', digest: sha(bytes), finalized: true})]);
    expect(s.list('run-1', {id: id + 1})).toEqual([]);
    expect(s.readBlob(s.finalizedBlobKey('run-1', 'a')).bytes.equals(bytes)).toBe(true);
  });

  test('a block list naming a block never staged is refused (400 InvalidBlockList)', () => {
    const {store: s} = store();
    const key = s.create({ids: IDS, name: 'a', version: 7});
    s.stageBlock(key, b64('1'), Buffer.from('x'));
    expect(blob(() => s.commitBlocks(key, [b64('1'), b64('2')], undefined))).toEqual({
      status: 400,
      code: 'InvalidBlockList'
    });
  });

  test('a block id that is not base64 is refused', () => {
    const {store: s} = store();
    const key = s.create({ids: IDS, name: 'a', version: 7});
    expect(blob(() => s.stageBlock(key, 'not base64!', Buffer.from('x')))).toMatchObject({status: 400});
  });

  test('finalize refuses an artifact not created (404), not uploaded (412) or already finalized (412)', () => {
    const {store: s} = store();
    expect(twirp(() => s.finalize(IDS, 'none', 0, undefined))).toMatchObject({code: TwirpCode.NotFound, status: 404});
    const key = s.create({ids: IDS, name: 'a', version: 7});
    expect(twirp(() => s.finalize(IDS, 'a', 0, undefined))).toMatchObject({
      code: TwirpCode.FailedPrecondition,
      status: 412
    });
    s.putBlob(key, Buffer.from('x'), 'text/plain');
    s.finalize(IDS, 'a', 1, undefined);
    expect(twirp(() => s.finalize(IDS, 'a', 1, undefined))).toMatchObject({code: TwirpCode.FailedPrecondition});
  });

  test('a finalized blob is read-only, and a pending one is not readable', () => {
    const {store: s} = store();
    const key = s.create({ids: IDS, name: 'a', version: 7});
    s.putBlob(key, Buffer.from('x'), undefined);
    expect(blob(() => s.readBlob(key))).toEqual({status: 404, code: 'BlobNotFound'});
    s.finalize(IDS, 'a', 1, undefined);
    expect(blob(() => s.putBlob(key, Buffer.from('y'), undefined))).toEqual({
      status: 403,
      code: 'AuthorizationPermissionMismatch'
    });
  });
});
