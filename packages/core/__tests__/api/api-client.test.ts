// Unit tests of the ApiClient: the CLI's composition of a BuildersClient and a CiClient over one engine.
import {describe, expect, test} from '@jest/globals';
import {ApiClient} from '../../src/api/api-client.js';
import type {HttpRequest} from '../../src/api/http-transport.js';
import {FakeClock, FakeTransport, json, RecordingLogger} from './fakes.js';

const TOKEN = 'rbk_both_5ecret';
const BASE = 'https://api.test/prefix/';

function setup() {
  const transport = new FakeTransport();
  const logger = new RecordingLogger();
  const client = new ApiClient({baseUrl: BASE, token: TOKEN, transport, clock: new FakeClock(), logger});
  return {client, transport, logger};
}

const RUNNER = {id: 'rnr_1', name: 'web'};
const IMAGE = {id: 'img_1', alias: 'base'};
const RUNNER_REQ = {
  name: 'web',
  provider_id: 'stk_1',
  configuration: {image: 'img_1', byoc_sku: {role_arn: '', instance_types: ['m5.large']}}
};

describe('ApiClient', () => {
  test.each<[string, (c: ApiClient) => Promise<unknown>, unknown, string]>([
    [
      'assignBuilder',
      c => c.builders.assignBuilder('p'),
      {builder_instances: [{id: 'b1'}]},
      'POST /api/v1/builders/assign'
    ],
    ['getBuilderDetails', c => c.builders.getBuilderDetails('b1'), {}, 'GET /api/v1/builders/b1/details'],
    ['teardownBuilder', c => c.builders.teardownBuilder('b1'), {}, 'DELETE /api/v1/builders/b1/teardown'],
    [
      'listBuilderProfiles',
      c => c.builders.listBuilderProfiles(),
      [],
      'GET /api/v1/builder-profiles?page=1&per_page=100'
    ],
    [
      'resetBuilderProfileCache',
      c => c.builders.resetBuilderProfileCache('bp'),
      {},
      'POST /api/v1/builder-profiles/bp/cache/reset'
    ],
    ['listStacks', c => c.ci.listStacks({kind: 'ec2'}), [], 'GET /api/v1/stacks?kind=ec2'],
    ['listRunnerImages', c => c.ci.listRunnerImages({page: 2}), [], 'GET /api/v1/runner-images?page=2'],
    ['listAllRunnerImages', c => c.ci.listAllRunnerImages(), [], 'GET /api/v1/runner-images?page=1&per_page=100'],
    [
      'createRunnerImage',
      c => c.ci.createRunnerImage({alias: 'a', stack_id: 's', type: 't'}),
      IMAGE,
      'POST /api/v1/runner-images'
    ],
    ['updateRunnerImage', c => c.ci.updateRunnerImage('img_1', {}), IMAGE, 'PUT /api/v1/runner-images/img_1'],
    ['listRunners', c => c.ci.listRunners(), [], 'GET /api/v1/runners'],
    ['getRunner', c => c.ci.getRunner('rnr_1'), RUNNER, 'GET /api/v1/runners/rnr_1'],
    ['createRunner', c => c.ci.createRunner(RUNNER_REQ), RUNNER, 'POST /api/v1/runners'],
    ['updateRunner', c => c.ci.updateRunner('rnr_1', {pool_size: 1}), RUNNER, 'PATCH /api/v1/runners/rnr_1'],
    ['deleteRunner', c => c.ci.deleteRunner('rnr_1'), RUNNER, 'DELETE /api/v1/runners/rnr_1']
  ])('%#. %s is sent through the shared engine', async (_name, run, body, sent) => {
    const {client, transport} = setup();
    transport.push(json(200, body));
    await run(client);
    const target = (r: HttpRequest) => `${r.method} ${r.url.replace('https://api.test/prefix', '')}`;
    expect(transport.requests.map(target)).toEqual([sent]);
    expect(transport.requests[0]?.headers.Authorization).toBe(`Bearer ${TOKEN}`);
  });

  test('the builders and CI clients share one transport, which close() closes', async () => {
    const {client, transport, logger} = setup();
    transport.push(json(200, []), json(200, []));
    await client.builders.listBuilderProfiles();
    await client.ci.listStacks();
    expect(transport.requests).toHaveLength(2);
    expect(logger.secrets).toEqual([TOKEN]);
    expect(transport.closed).toBe(false);
    client.close();
    expect(transport.closed).toBe(true);
  });
});
