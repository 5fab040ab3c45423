import {describe, expect, test} from '@jest/globals';
import {mkdtempSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {GitHubContext} from '../../src/docker/github-context.js';
import {renderTemplate} from '../../src/docker/template.js';

const base = {GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '42', GITHUB_RUN_ATTEMPT: '2'};

describe('GitHubContext', () => {
  // docker's Context.parseGitRef (toolkit 0.62): the sha wins except for pull requests.
  // prettier-ignore
  test.each([
    [1, {GITHUB_REF: 'refs/heads/main'}, 'https://github.com/o/r.git#refs/heads/main'],
    [2, {GITHUB_REF: 'refs/heads/main', GITHUB_SHA: 'abc123'}, 'https://github.com/o/r.git#abc123'],
    [3, {GITHUB_REF: 'main', GITHUB_SHA: 'abc123'}, 'https://github.com/o/r.git#abc123'],
    [4, {GITHUB_REF: 'refs/pull/7/merge', GITHUB_SHA: 'abc123'}, 'https://github.com/o/r.git#refs/pull/7/merge'],
    [5, {GITHUB_REF: 'refs/pull/7/merge', GITHUB_SHA: 'abc', DOCKER_DEFAULT_GIT_CONTEXT_PR_HEAD_REF: 'true'}, 'https://github.com/o/r.git#refs/pull/7/head'],
    [6, {GITHUB_REF: 'refs/tags/v1', GITHUB_SERVER_URL: 'https://ghe.example'}, 'https://ghe.example/o/r.git#refs/tags/v1']
  ])('[%d] git context %j', (_n, env, expected) => {
    expect(new GitHubContext({...base, ...env}).gitContext()).toBe(expected);
  });

  test('no repository, no git context', () => {
    expect(new GitHubContext({}).gitContext()).toBeUndefined();
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

  test('HTML-escapes like Handlebars; triple braces do not', () => {
    expect(renderTemplate('{{v}}', {v: 'a=b&c'})).toBe('a&#x3D;b&amp;c');
    expect(renderTemplate('{{{v}}}', {v: 'a=b&c'})).toBe('a=b&c');
  });
});
