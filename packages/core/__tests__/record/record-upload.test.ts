// uploadBuildRecord with the real @actions/artifact client against the emulator's artifact service, over
// loopback HTTP: what the service stores is what was on disk, under the record's name, with its retention.
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, beforeEach, expect, jest, test} from '@jest/globals';
import {ArtifactCall} from '../../../emulator/src/artifacts/artifact-faults.js';
import {GitHubArtifactService} from '../../../emulator/src/artifacts/artifact-service.js';
import {ArtifactEnv, uploadBuildRecord} from '../../src/record/record-upload.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

const NAME = 'octo-org~octo-repo~A1B2C3+2.dockerbuild';
const CLIENT_VARS = [...Object.values(ArtifactEnv), 'ACTIONS_STEP_DEBUG'];

let service: GitHubArtifactService;
let dir: string;
let recordFile: string;
let saved: Record<string, string | undefined>;
/** What the client printed on stdout (its core.info, ::add-mask::, ::warning:: lines). */
let printed: string[];

beforeAll(async () => {
  service = await GitHubArtifactService.start();
  dir = await mkdtemp(path.join(tmpdir(), 'record-upload-'));
  recordFile = path.join(dir, 'history-export.dockerbuild');
  // 8 MiB and some: two blocks of the client's 8 MiB chunks, the last one partial.
  const bytes = Buffer.alloc(8 * 1024 * 1024 + 17);
  for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32BE(i, i);
  await writeFile(recordFile, bytes);
});

afterAll(async () => {
  await service.close();
  await rm(dir, {recursive: true, force: true});
});

beforeEach(() => {
  saved = Object.fromEntries(CLIENT_VARS.map(k => [k, process.env[k]]));
  for (const k of CLIENT_VARS) delete process.env[k];
  printed = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed.push(String(chunk));
    return true;
  });
});

afterEach(() => {
  jest.restoreAllMocks();
  service.clearFaults();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** Sets the runner's variables for one job of the service's run; returns the token. */
function onRunner(extra: Record<string, string> = {}): string {
  const env = service.runnerEnv();
  Object.assign(process.env, env, extra);
  return env.ACTIONS_RUNTIME_TOKEN as string;
}

test('uploads the file as one non-zipped artifact under the record name, with its retention', async () => {
  const token = onRunner();
  const logger = new RecordingLogger();

  const result = await uploadBuildRecord({filePath: recordFile, name: NAME, logger, retentionDays: 7});

  const stored = service.artifacts().find(a => a.name === NAME);
  expect(stored).toMatchObject({finalized: true, retentionDays: 7, mimeType: 'application/octet-stream', version: 7});
  expect(stored?.bytes?.equals(await readFile(recordFile))).toBe(true);
  expect(result).toEqual({artifactId: stored?.id, retentionDays: 7});
  expect(logger.messages('info')).toEqual([`Build record uploaded: artifact ${NAME} (id ${stored?.id}, kept 7 days)`]);
  expect(printed.join('')).not.toContain(token);
});

test('the uploaded record reads back with the real client: same name, same bytes, same digest', async () => {
  onRunner();
  const name = 'read-back.dockerbuild';
  const {artifactId} = await uploadBuildRecord({filePath: recordFile, name, logger: new RecordingLogger()});
  const stored = service.artifacts().find(a => a.name === name);
  const into = path.join(dir, 'download');

  const {DefaultArtifactClient} = await import('@actions/artifact');
  const downloaded = await new DefaultArtifactClient().downloadArtifact(artifactId as number, {
    path: into,
    expectedHash: stored?.digest
  });

  expect(downloaded.digestMismatch).toBe(false);
  expect((await readFile(path.join(into, name))).equals(await readFile(recordFile))).toBe(true);
});

test("the repository's retention limit shortens the retention, as the client does", async () => {
  onRunner({[ArtifactEnv.RetentionDays]: '3'});
  const name = 'capped.dockerbuild';

  const result = await uploadBuildRecord({
    filePath: recordFile,
    name,
    logger: new RecordingLogger(),
    retentionDays: 30
  });

  expect(result.retentionDays).toBe(3);
  expect(service.artifacts().find(a => a.name === name)?.retentionDays).toBe(3);
});

test('a 503 from the results service is retried by the client and the upload succeeds', async () => {
  onRunner();
  service.addFault({call: ArtifactCall.CreateArtifact, status: 503});
  const name = 'retried.dockerbuild';

  const result = await uploadBuildRecord({filePath: recordFile, name, logger: new RecordingLogger()});

  expect(result.artifactId).toBe(service.artifacts().find(a => a.name === name)?.id);
  expect(printed.join('')).toContain('Attempt 1 of 5 failed with error: Failed request: (503)');
});

test('off a runner (no ACTIONS_RUNTIME_TOKEN or ACTIONS_RESULTS_URL) nothing is uploaded', async () => {
  const before = service.artifacts().length;
  const logger = new RecordingLogger();

  const result = await uploadBuildRecord({filePath: recordFile, name: 'none.dockerbuild', logger});

  expect(result.skipped).toMatch(/^no artifact service \(ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL are set only/);
  expect(logger.messages('info')).toEqual([`Build record not uploaded: ${result.skipped}`]);
  expect(service.artifacts()).toHaveLength(before);
});

test('on GitHub Enterprise Server nothing is uploaded, and one line says why', async () => {
  onRunner({[ArtifactEnv.ServerUrl]: 'https://ghes.example.com'});
  const before = service.artifacts().length;

  const result = await uploadBuildRecord({
    filePath: recordFile,
    name: 'ghes.dockerbuild',
    logger: new RecordingLogger()
  });

  expect(result).toEqual({skipped: expect.stringMatching(/^GitHub Enterprise Server has no artifact service/)});
  expect(service.artifacts()).toHaveLength(before);
});

test('a refused CreateArtifact (the name is taken in the run) is a one-line error and a warning, never a throw', async () => {
  const token = onRunner();
  const logger = new RecordingLogger();
  const name = 'taken.dockerbuild';
  await uploadBuildRecord({filePath: recordFile, name, logger: new RecordingLogger()});

  const result = await uploadBuildRecord({filePath: recordFile, name, logger});

  expect(result).toEqual({
    error:
      'Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run'
  });
  expect(logger.messages('warning')).toEqual([`Build record not uploaded: ${result.error}`]);
  expect(printed.join('')).not.toContain(token);
});

test("the storage quota's refusal keeps the first line of the client's message", async () => {
  onRunner();
  service.addFault({call: ArtifactCall.CreateArtifact, status: 403, msg: 'insufficient usage to create artifact'});

  const result = await uploadBuildRecord({
    filePath: recordFile,
    name: 'quota.dockerbuild',
    logger: new RecordingLogger()
  });

  expect(result).toEqual({
    error: 'Failed to CreateArtifact: Artifact storage quota has been hit. Unable to upload any new artifacts.'
  });
});

test('a refused blob upload is a one-line error that says it was the blob upload', async () => {
  onRunner();
  service.addFault({call: ArtifactCall.PutBlock, status: 403, msg: 'Signature not valid in the specified time frame.'});

  const result = await uploadBuildRecord({
    filePath: recordFile,
    name: 'refused.dockerbuild',
    logger: new RecordingLogger()
  });

  expect(result).toEqual({
    error: 'the blob upload was refused (403 AuthenticationFailed): Signature not valid in the specified time frame.'
  });
  expect(service.artifacts().find(a => a.name === 'refused.dockerbuild')?.finalized).toBe(false);
});

test('an env that differs from process.env (which the client reads) is refused rather than half-followed', async () => {
  onRunner();
  const env = {...process.env, [ArtifactEnv.ResultsUrl]: 'http://127.0.0.1:9/'};

  const result = await uploadBuildRecord({
    filePath: recordFile,
    name: 'elsewhere.dockerbuild',
    logger: new RecordingLogger(),
    env
  });

  expect(result.error).toMatch(
    /^the env given and process.env \(which @actions\/artifact reads\) disagree on ACTIONS_RESULTS_URL:/
  );
});

test("an env naming github.com where process.env has no GITHUB_SERVER_URL agrees with the client's default", async () => {
  onRunner();
  const env = {...process.env, [ArtifactEnv.ServerUrl]: 'https://github.com'};

  const result = await uploadBuildRecord({
    filePath: recordFile,
    name: 'agreed.dockerbuild',
    logger: new RecordingLogger(),
    env
  });

  expect(result.artifactId).toBe(service.artifacts().find(a => a.name === 'agreed.dockerbuild')?.id);
});

test('a retention that is not a whole number of days is an error', async () => {
  onRunner();

  const result = await uploadBuildRecord({
    filePath: recordFile,
    name: 'zero.dockerbuild',
    logger: new RecordingLogger(),
    retentionDays: 0
  });

  expect(result).toEqual({error: 'retention of 0 days is not a whole number of days of at least 1'});
});

test.each([
  ['a name with a folder', {name: 'dir/x.dockerbuild'}, 'artifact name "dir/x.dockerbuild" is not a file name'],
  [
    'a missing record file',
    {filePath: '/nonexistent/x.dockerbuild'},
    'the record file /nonexistent/x.dockerbuild does not exist'
  ]
])('%s is an error before anything is sent', async (_what, change, error) => {
  onRunner();
  const before = service.artifacts().length;

  const result = await uploadBuildRecord({
    filePath: recordFile,
    name: 'n.dockerbuild',
    logger: new RecordingLogger(),
    ...change
  });

  expect(result).toEqual({error: expect.stringContaining(error)});
  expect(service.artifacts()).toHaveLength(before);
});
