import {describe, expect, test} from '@jest/globals';
import {isEnterpriseServer, recordSkipReason} from '../../src/record/record-gate.js';
import {readRecordSwitches} from '../../src/record/record-switches.js';

const ON = {buildxVersion: '0.29.1', summary: true, env: {}};

describe('recordSkipReason', () => {
  // prettier-ignore
  test.each([
    [1, {}, undefined],
    [2, {summary: false}, 'Build summary disabled'],
    [3, {call: 'check'}, 'Build summary skipped for check subrequest'],
    [4, {call: 'outline,format=json'}, 'Build summary skipped for outline subrequest'],
    [5, {call: 'build'}, undefined],
    [6, {env: {GITHUB_SERVER_URL: 'https://ghes.example.com'}}, 'Build summary is not yet supported on GHES'],
    [7, {env: {GITHUB_SERVER_URL: 'https://octo.ghe.com'}}, undefined],
    [8, {buildxVersion: '0.22.9'}, expect.stringMatching(/^Build summary requires Buildx >= 0\.23\.0 \(this step runs buildx 0\.22\.9;/)]
  ])('[%d] %o -> %s', (_n, change, reason) => {
    expect(recordSkipReason({...ON, ...change})).toEqual(reason);
  });

  // prettier-ignore
  test.each([
    [undefined, false], ['https://github.com', false], ['https://x.ghe.com', false], ['http://127.0.0.1.localhost:9', false],
    ['https://github.example.com', true], ['not a url', true]
  ])('GHES(%s) = %s', (url, ghes) => {
    expect(isEnterpriseServer(url)).toBe(ghes);
  });
});

describe('readRecordSwitches', () => {
  test('docker defaults: upload, the repository retention, no warning', () => {
    const warnings: string[] = [];
    expect(readRecordSwitches({}, {warning: m => warnings.push(m)})).toEqual({upload: true});
    expect(warnings).toEqual([]);
  });

  test('DOCKER_BUILD_RECORD_UPLOAD=false and a retention in days', () => {
    const env = {DOCKER_BUILD_RECORD_UPLOAD: 'false', DOCKER_BUILD_RECORD_RETENTION_DAYS: '5'};
    expect(readRecordSwitches(env, {warning: () => undefined})).toEqual({upload: false, retentionDays: 5});
  });

  test('values that cannot be read: one warning each, the defaults', () => {
    const warnings: string[] = [];
    const env = {DOCKER_BUILD_RECORD_UPLOAD: 'nope', DOCKER_BUILD_RECORD_RETENTION_DAYS: 'a week'};
    expect(readRecordSwitches(env, {warning: m => warnings.push(m)})).toEqual({upload: true});
    expect(warnings).toEqual([
      expect.stringContaining('DOCKER_BUILD_RECORD_UPLOAD="nope" is not a boolean'),
      expect.stringContaining(
        `DOCKER_BUILD_RECORD_RETENTION_DAYS="a week" is not a number of days (e.g. 7); the build record keeps the repository's default retention`
      )
    ]);
  });
});
