import {describe, expect, test} from '@jest/globals';
import {mkdtempSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {GitContextRules, GitHubContext} from '../../src/docker/github-context.js';
import {renderTemplate} from '../../src/docker/template.js';

const base = {GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '42', GITHUB_RUN_ATTEMPT: '2'};
const eventDir = mkdtempSync(join(tmpdir(), 'gh-ctx-pr-'));
const prEvent = join(eventDir, 'event.json');
writeFileSync(prEvent, JSON.stringify({pull_request: {head: {sha: 'def456'}}}));

describe('GitHubContext', () => {
  const Q = {BUILDX_SEND_GIT_QUERY_AS_INPUT: 'true'};
  const SHA = {GITHUB_SHA: 'abc123'};
  const PR = {GITHUB_REF: 'refs/pull/7/merge', ...SHA};
  const HEAD = {DOCKER_DEFAULT_GIT_CONTEXT_PR_HEAD_REF: 'true'};
  // docker's Build.gitContext of the toolkit each v7 action pins: build-push v7.3.0 → 0.92, bake v7.1.0 → 0.87.
  // prettier-ignore
  test.each([
    [1, {GITHUB_REF: 'refs/heads/main'}, '0.13.1', '#refs/heads/main', '#refs/heads/main'],
    [2, {GITHUB_REF: 'refs/heads/main', ...SHA}, '0.13.1', '#abc123', '#abc123'],
    [3, {GITHUB_REF: 'main', ...SHA}, '0.13.1', '#abc123', '#abc123'],
    [4, {GITHUB_REF: 'main'}, '0.13.1', '#refs/heads/main', '#refs/heads/main'],
    [5, PR, '0.13.1', '#abc123', '#refs/pull/7/merge'],
    [6, {...PR, ...HEAD}, '0.13.1', '#def456', '#refs/pull/7/head'],
    [7, {...PR, DOCKER_DEFAULT_GIT_CONTEXT_PR_HEAD_REF: '1', GITHUB_EVENT_PATH: '/no/such/event.json'}, '0.13.1', '#refs/pull/7/head', '#refs/pull/7/head'],
    [8, {GITHUB_REF: 'refs/tags/v1'}, '0.13.1', '#refs/tags/v1', '#refs/tags/v1'],
    // The query form: BUILDX_SEND_GIT_QUERY_AS_INPUT=true and buildx >= 0.29.0.
    [9, {GITHUB_REF: 'refs/heads/main', ...Q}, '0.29.0', '?ref=refs/heads/main', '?ref=refs/heads/main'],
    [10, {GITHUB_REF: 'refs/heads/main', ...SHA, ...Q}, '0.29.0', '?ref=abc123', '?ref=refs/heads/main&checksum=abc123'],
    [11, {GITHUB_REF: 'refs/heads/main', ...SHA, ...Q}, '0.28.0', '#abc123', '#abc123'],
    [12, {GITHUB_REF: 'refs/heads/main', ...SHA, BUILDX_SEND_GIT_QUERY_AS_INPUT: 'yes'}, '0.36.1', '#abc123', '#abc123'],
    [13, {GITHUB_REF: 'refs/heads/main', ...SHA, BUILDX_SEND_GIT_QUERY_AS_INPUT: '1'}, 'a1b2c3d', '?ref=abc123', '?ref=refs/heads/main&checksum=abc123'],
    [14, {GITHUB_REF: 'refs/heads/main', ...SHA, ...Q}, '', '#abc123', '#abc123'],
    [15, {...PR, ...Q}, '0.29.0', '?ref=abc123', '?ref=refs/pull/7/merge&checksum=abc123'],
    [16, {...PR, ...HEAD, ...Q}, '0.29.0', '?ref=def456', '?ref=refs/pull/7/head&checksum=abc123']
  ])('[%d] %j on buildx %s: build-push %s, bake %s', (_n, env, buildxVersion, buildPush, bake) => {
    const gh = new GitHubContext({...base, GITHUB_EVENT_PATH: prEvent, ...env});
    expect(gh.gitContext({rules: GitContextRules.BuildPush, buildxVersion})).toBe(`https://github.com/o/r.git${buildPush}`);
    expect(gh.gitContext({rules: GitContextRules.Bake, buildxVersion})).toBe(`https://github.com/o/r.git${bake}`);
  });

  test('the server URL comes from GITHUB_SERVER_URL', () => {
    const gh = new GitHubContext({...base, GITHUB_REF: 'refs/tags/v1', GITHUB_SERVER_URL: 'https://ghe.example'});
    expect(gh.gitContext({rules: GitContextRules.BuildPush})).toBe('https://ghe.example/o/r.git#refs/tags/v1');
  });

  test('no repository, no git context', () => {
    expect(new GitHubContext({}).gitContext({rules: GitContextRules.BuildPush})).toBeUndefined();
    expect(new GitHubContext({}).gitContext({rules: GitContextRules.Bake})).toBeUndefined();
  });

  test('workflow run URL and private payload', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-ctx-'));
    const event = join(dir, 'event.json');
    writeFileSync(event, JSON.stringify({repository: {private: true}}));
    const gh = new GitHubContext({...base, GITHUB_EVENT_PATH: event});
    expect(gh.workflowRunUrl(true)).toBe('https://github.com/o/r/actions/runs/42/attempts/2');
    expect(gh.workflowRunUrl(false)).toBe('https://github.com/o/r/actions/runs/42');
    expect(gh.repositoryIsPrivate).toBe(true);
    expect(new GitHubContext({...base, GITHUB_EVENT_PATH: join(dir, 'missing.json')}).repositoryIsPrivate).toBe(false);
  });
});

describe('renderTemplate (the Handlebars subset docker uses)', () => {
  // prettier-ignore
  test.each([
    [1, '{{defaultContext}}:sub', 'https://g/o/r.git#main:sub'],
    [2, '{{ defaultContext }}', 'https://g/o/r.git#main'],
    [3, '.', '.'],
    [4, '{{unknown}}x', 'x'],
    [5, '\\{{defaultContext}}', '{{defaultContext}}'],
    [6, '{{defaultContext}}?a=b', 'https://g/o/r.git#main?a=b']
  ])('[%d] %j', (_n, template, expected) => {
    expect(renderTemplate(template, {defaultContext: 'https://g/o/r.git#main'})).toBe(expected);
  });

  test('HTML-escapes like Handlebars; triple braces do not, nor escape: false', () => {
    expect(renderTemplate('{{v}}', {v: 'a=b&c'})).toBe('a&#x3D;b&amp;c');
    expect(renderTemplate('{{{v}}}', {v: 'a=b&c'})).toBe('a=b&c');
    expect(renderTemplate('{{v}}:sub', {v: 'a=b&c'}, {escape: false})).toBe('a=b&c:sub');
    expect(renderTemplate('{{{v}}', {v: 'x'}, {escape: false})).toBe('{{{v}}');
  });
});
