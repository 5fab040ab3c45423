import {expect, test} from '@jest/globals';
import {childEnv, isKeyVariable, KeyEnv} from '../src/child-env.js';
import {Env} from '../src/inputs.js';

// prettier-ignore
test.each([
  ['INPUT_API-KEY', true],
  ['INPUT_API_KEY', true],
  ['input_api-key', true],
  ['REMOTE_BUILDER_API_KEY', true],
  ['REMOTE_BUILDER_RUNNER_TOKEN', true],
  ['REMOTE_BUILDER_API_URL', false],
  ['INPUT_API-URL', false],
  ['INPUT_API-KEYS', false],
  ['ACTIONS_RUNTIME_TOKEN', false],
  ['ACTIONS_CACHE_URL', false],
  ['ACTIONS_RESULTS_URL', false],
  ['DOCKER_CONFIG', false],
  ['HTTPS_PROXY', false],
  ['MY_SECRET_ENV', false],
  ['GITHUB_TOKEN', false]
])('%s carries the API key: %s', (name, key) => {
  expect(isKeyVariable(name)).toBe(key);
});

test('the child gets the base with the extras over it, without the key variables from either', () => {
  const env = childEnv(
    {
      PATH: '/bin',
      'INPUT_API-KEY': 'k1',
      REMOTE_BUILDER_API_KEY: 'k2',
      REMOTE_BUILDER_RUNNER_TOKEN: 'k3',
      ACTIONS_RUNTIME_TOKEN: 'rt',
      ACTIONS_CACHE_URL: 'https://cache/',
      DOCKER_CONFIG: '/old',
      UNSET: undefined
    },
    {DOCKER_CONFIG: '/new', REMOTE_BUILDER_API_KEY: 'k4'}
  );
  expect(env).toEqual({
    PATH: '/bin',
    ACTIONS_RUNTIME_TOKEN: 'rt',
    ACTIONS_CACHE_URL: 'https://cache/',
    DOCKER_CONFIG: '/new'
  });
});

test('the names are the ones the inputs read', () => {
  expect([KeyEnv.ApiKey, KeyEnv.RunnerToken]).toEqual([Env.ApiKey, Env.RunnerToken]);
});
