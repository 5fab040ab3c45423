import {describe, expect, test} from '@jest/globals';
import type {BuilderDetails} from '../../src/api/types.js';
import {detailsVerdict} from '../../src/lifecycle/details-verdict.js';
import {pendingDetails, readyDetails} from '../fakes/fake-builder-api.js';

const HOST = 'tcp://10.0.0.1:1234';

describe('detailsVerdict: the one reading of a details answer', () => {
  test.each([
    [
      'status failed, every field',
      readyDetails(HOST, {status: 'Failed'}),
      {kind: 'lost', status: 'Failed', why: 'its status is "Failed"'}
    ],
    [
      'status terminated, nothing yet',
      pendingDetails({status: 'terminated'}),
      {kind: 'lost', status: 'terminated', why: 'its status is "terminated"'}
    ],
    [
      'nothing yet, status pending',
      pendingDetails({status: 'pending'}),
      {
        kind: 'pending',
        status: 'pending',
        missing: ['host', 'ca', 'client_cert', 'client_key'],
        saysReady: false,
        why: 'details lack host, ca, client_cert, client_key (status "pending")'
      }
    ],
    [
      '"ready" without a key',
      readyDetails(HOST, {status: 'ready'}, {client_key: ' '}),
      {
        kind: 'pending',
        status: 'ready',
        missing: ['client_key'],
        saysReady: true,
        why: 'details lack client_key (status "ready")'
      }
    ],
    [
      'every field, status Provisioning',
      readyDetails(HOST, {status: 'Provisioning'}),
      {kind: 'pending', status: 'provisioning', missing: [], saysReady: false, why: 'status is "provisioning"'}
    ],
    [
      'two malformed PEMs',
      readyDetails(HOST, {}, {ca: 'x', client_key: 'y'}),
      {kind: 'broken', why: 'details carry a malformed ca, client_key: not a PEM block'}
    ],
    [
      'no metadata at all',
      {status: 'pending'} as unknown as BuilderDetails,
      {
        kind: 'pending',
        status: 'pending',
        missing: ['host', 'ca', 'client_cert', 'client_key'],
        saysReady: false,
        why: 'details lack host, ca, client_cert, client_key (status "pending")'
      }
    ]
  ])('%s', (_name, details, verdict) => {
    expect(detailsVerdict(details)).toEqual(verdict);
  });

  test('complete: the endpoint its host names, with or without a status', () => {
    const expected = {kind: 'complete', endpoint: {hostname: '10.0.0.1', port: 1234, url: HOST, defaultedPort: false}};
    expect(detailsVerdict(readyDetails(HOST))).toEqual(expected);
    expect(detailsVerdict(readyDetails(HOST, {status: 'READY'}))).toEqual(expected);
  });

  test('a host that is not tcp:// is broken, not pending', () => {
    const verdict = detailsVerdict(readyDetails('http://10.0.0.1:1234'));
    expect(verdict).toEqual({
      kind: 'broken',
      why: 'details carry an unusable host: the builder host "http://10.0.0.1:1234" uses http://; expected tcp://'
    });
  });
});
