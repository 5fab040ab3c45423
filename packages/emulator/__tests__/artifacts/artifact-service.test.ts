// The artifact service over loopback HTTP, as @actions/artifact and @azure/storage-blob speak to it (the real
// client's own run is packages/core/__tests__/record/record-upload.test.ts).
import {createHash} from 'node:crypto';
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {ArtifactCall} from '../../src/artifacts/artifact-faults.js';
import {GitHubArtifactService} from '../../src/artifacts/artifact-service.js';
import {ManualClock} from '../../src/clock.js';

const SERVICE = 'twirp/github.actions.results.api.v1.ArtifactService';

let clock: ManualClock;
let service: GitHubArtifactService;
let token: string;
let ids: {workflow_run_backend_id: string; workflow_job_run_backend_id: string};

beforeEach(async () => {
  clock = new ManualClock();
  service = await GitHubArtifactService.start({clock});
  token = service.runtimeToken({jobBackendId: 'job-1'});
  ids = {workflow_run_backend_id: service.runBackendId, workflow_job_run_backend_id: 'job-1'};
});

afterEach(async () => {
  await service.close();
});

async function twirp(
  method: string,
  body: unknown,
  headers: Record<string, string> = {authorization: `Bearer ${token}`}
): Promise<{status: number; body: Record<string, unknown>}> {
  const res = await fetch(`${service.resultsUrl}${SERVICE}/${method}`, {
    method: 'POST',
    headers: {'content-type': 'application/json', ...headers},
    body: JSON.stringify(body)
  });
  return {status: res.status, body: (await res.json()) as Record<string, unknown>};
}

/** CreateArtifact as @actions/artifact sends it for a non-zipped upload; returns the signed upload URL. */
async function create(name: string): Promise<string> {
  const res = await twirp('CreateArtifact', {...ids, name, version: 7, mime_type: 'application/octet-stream'});
  expect(res).toEqual({status: 200, body: {ok: true, signed_upload_url: expect.any(String)}});
  return res.body.signed_upload_url as string;
}

function put(url: string, query: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}&${query}`, {method: 'PUT', body, headers: {'x-ms-version': '2025-01-05', ...headers}});
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('the upload as @actions/artifact makes it', () => {
  test('CreateArtifact, Put Block ×2, Put Block List, FinalizeArtifact; then listed and downloadable', async () => {
    const upload = await create('app.dockerbuild');
    expect(new URL(upload).origin).toBe(new URL(service.resultsUrl).origin);
    expect((await put(upload, `comp=block&blockid=${encodeURIComponent(b64('b1'))}`, 'hello ')).status).toBe(201);
    expect((await put(upload, `comp=block&blockid=${encodeURIComponent(b64('b2'))}`, 'world')).status).toBe(201);
    const list = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><BlockList><Latest>${b64('b1')}</Latest><Latest>${b64('b2')}</Latest></BlockList>`;
    const committed = await put(upload, 'comp=blocklist', list, {'x-ms-blob-content-type': 'application/octet-stream'});
    expect(committed.status).toBe(201);
    expect(committed.headers.get('etag')).toMatch(/^"0x/);
    const hash = `sha256:${createHash('sha256').update('hello world').digest('hex')}`;

    const finalized = await twirp('FinalizeArtifact', {...ids, name: 'app.dockerbuild', size: '11', hash});

    expect(finalized).toEqual({status: 200, body: {ok: true, artifact_id: expect.stringMatching(/^\d+$/)}});
    const listed = await twirp('ListArtifacts', {...ids, name_filter: 'app.dockerbuild'});
    expect(listed.body.artifacts).toEqual([
      {
        ...ids,
        database_id: finalized.body.artifact_id,
        name: 'app.dockerbuild',
        size: '11',
        created_at: new Date(clock.now()).toISOString(),
        digest: hash
      }
    ]);
    const signed = await twirp('GetSignedArtifactURL', {...ids, name: 'app.dockerbuild'});
    const download = await fetch(signed.body.signed_url as string);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(await download.text()).toBe('hello world');
    expect(service.artifacts()).toEqual([
      expect.objectContaining({name: 'app.dockerbuild', finalized: true, bytes: Buffer.from('hello world')})
    ]);
  });

  test('Put Blob uploads the whole blob in one request', async () => {
    const upload = await create('one.bin');
    const res = await fetch(upload, {
      method: 'PUT',
      body: 'abc',
      headers: {'x-ms-blob-type': 'BlockBlob', 'x-ms-blob-content-type': 'text/plain'}
    });
    expect(res.status).toBe(201);
    expect(service.artifacts()[0]).toMatchObject({bytes: Buffer.from('abc'), contentType: 'text/plain'});
  });
});

describe('the runtime token', () => {
  test('a call without it is 401 unauthenticated, in Twirp’s error shape', async () => {
    expect(await twirp('CreateArtifact', {...ids, name: 'a', version: 7}, {})).toEqual({
      status: 401,
      body: {code: 'unauthenticated', msg: 'missing bearer token (Authorization: Bearer <ACTIONS_RUNTIME_TOKEN>)'}
    });
  });

  test("backend ids other than the token's are 403 permission_denied", async () => {
    const res = await twirp('CreateArtifact', {...ids, workflow_job_run_backend_id: 'job-2', name: 'a', version: 7});
    expect(res).toEqual({
      status: 403,
      body: {code: 'permission_denied', msg: "the backend ids are not the runtime token's"}
    });
  });
});

describe('routes', () => {
  test('an unknown method, a GET and a non-JSON body are 404 bad_route', async () => {
    expect((await twirp('DeleteEverything', {})).body.code).toBe('bad_route');
    const get = await fetch(`${service.resultsUrl}${SERVICE}/CreateArtifact`);
    expect([get.status, ((await get.json()) as {code: string}).code]).toEqual([404, 'bad_route']);
    const proto = await twirp(
      'CreateArtifact',
      {},
      {authorization: `Bearer ${token}`, 'content-type': 'application/protobuf'}
    );
    expect([proto.status, proto.body.code]).toEqual([404, 'bad_route']);
  });
});

describe('the signed URL', () => {
  test('a changed signature is 403 AuthenticationFailed, in Azure’s XML error shape', async () => {
    const upload = new URL(await create('a'));
    upload.searchParams.set('sig', 'forged');
    const res = await fetch(upload, {method: 'PUT', body: 'x', headers: {'x-ms-blob-type': 'BlockBlob'}});
    expect(res.status).toBe(403);
    expect(res.headers.get('x-ms-error-code')).toBe('AuthenticationFailed');
    expect(await res.text()).toContain('<Error><Code>AuthenticationFailed</Code><Message>Signature did not match');
  });

  test('an expired URL is refused', async () => {
    const upload = await create('a');
    clock.advance(60 * 60 * 1000);
    const res = await fetch(upload, {method: 'PUT', body: 'x', headers: {'x-ms-blob-type': 'BlockBlob'}});
    expect([res.status, await res.text()]).toEqual([403, expect.stringContaining('Signed expiry time has passed.')]);
  });

  test('a download URL does not allow writing', async () => {
    const upload = await create('a');
    await fetch(upload, {method: 'PUT', body: 'x', headers: {'x-ms-blob-type': 'BlockBlob'}});
    await twirp('FinalizeArtifact', {...ids, name: 'a', size: '1'});
    const signed = await twirp('GetSignedArtifactURL', {...ids, name: 'a'});
    const res = await fetch(signed.body.signed_url as string, {
      method: 'PUT',
      body: 'y',
      headers: {'x-ms-blob-type': 'BlockBlob'}
    });
    expect([res.status, res.headers.get('x-ms-error-code')]).toEqual([403, 'AuthorizationPermissionMismatch']);
  });
});

describe('faults', () => {
  test('a Twirp fault answers the next call with its status and Twirp code, then goes away', async () => {
    service.addFault({call: ArtifactCall.CreateArtifact, status: 503});
    expect(await twirp('CreateArtifact', {...ids, name: 'a', version: 7})).toEqual({
      status: 503,
      body: {code: 'unavailable', msg: 'fault injected by the emulator on CreateArtifact'}
    });
    expect((await twirp('CreateArtifact', {...ids, name: 'a', version: 7})).status).toBe(200);
  });

  test('a blob fault answers in Azure’s shape; a reset drops the connection', async () => {
    const upload = await create('a');
    service.addFault({call: ArtifactCall.PutBlob, status: 500, times: 1});
    service.addFault({call: ArtifactCall.PutBlob, action: 'reset'});
    const headers = {'x-ms-blob-type': 'BlockBlob'};
    const failed = await fetch(upload, {method: 'PUT', body: 'x', headers});
    expect([failed.status, failed.headers.get('x-ms-error-code')]).toEqual([500, 'InternalError']);
    await expect(fetch(upload, {method: 'PUT', body: 'x', headers})).rejects.toThrow();
    expect((await fetch(upload, {method: 'PUT', body: 'x', headers})).status).toBe(201);
  });

  test('a rule for an unknown call is refused', () => {
    expect(() => service.addFault({call: 'Nope' as ArtifactCall})).toThrow('Unknown artifact call "Nope"');
  });
});

describe('admin routes (/_artifacts)', () => {
  const admin = (path: string, method: string, body?: unknown): Promise<Response> =>
    fetch(`${service.resultsUrl}_artifacts/${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body)
    });

  test("POST token answers a job's runner variables, which the Twirp API accepts", async () => {
    const env = (await (await admin('token', 'POST', {jobBackendId: 'job-9'})).json()) as Record<string, string>;
    expect(env.ACTIONS_RESULTS_URL).toBe(service.resultsUrl);
    token = env.ACTIONS_RUNTIME_TOKEN as string;
    const res = await twirp('CreateArtifact', {...ids, workflow_job_run_backend_id: 'job-9', name: 'a', version: 7});
    expect(res.status).toBe(200);
  });

  test('GET artifacts lists the store with sizes', async () => {
    const upload = await create('a');
    await fetch(upload, {method: 'PUT', body: 'abc', headers: {'x-ms-blob-type': 'BlockBlob'}});
    const listed = (await (await admin('artifacts', 'GET')).json()) as {artifacts: Record<string, unknown>[]};
    expect(listed.artifacts).toEqual([expect.objectContaining({name: 'a', size: 3, finalized: false})]);
  });

  test('POST faults adds a rule (a bad one is 400), DELETE clears them', async () => {
    expect((await admin('faults', 'POST', {call: 'CreateArtifact', status: 200})).status).toBe(400);
    expect((await admin('faults', 'POST', {call: 'CreateArtifact', status: 429, times: 2})).status).toBe(201);
    expect((await twirp('CreateArtifact', {...ids, name: 'a', version: 7})).body.code).toBe('resource_exhausted');
    expect((await admin('faults', 'DELETE')).status).toBe(200);
    expect((await twirp('CreateArtifact', {...ids, name: 'a', version: 7})).status).toBe(200);
  });
});
