import path from 'node:path';
import {describe, expect, test} from '@jest/globals';
import {buildStepEnv, inputEnvName, jobDirs} from '../../src/harness/runner-env.js';

describe('inputEnvName', () => {
  test.each([
    [1, 'timeout', 'INPUT_TIMEOUT'],
    [2, 'profile-name', 'INPUT_PROFILE-NAME'],
    [3, 'my input', 'INPUT_MY_INPUT'],
    [4, 'a.b', 'INPUT_A.B'],
    [5, 'Mixed Case-x', 'INPUT_MIXED_CASE-X']
  ])('%i: %s → %s', (_n, name, variable) => {
    expect(inputEnvName(name)).toBe(variable);
  });
});

describe('buildStepEnv', () => {
  const dirs = jobDirs('/job');
  const parentEnv = {PATH: '/usr/bin', HOME: '/home/me', SECRET_TOKEN: 'x', NODE_ICU_DATA: '/icu'};
  const commandFiles = {GITHUB_OUTPUT: '/job/out'};

  test('starts clean: only PATH and HOME from the parent', () => {
    const env = buildStepEnv({dirs, commandFiles, parentEnv});
    expect(env).toMatchObject({PATH: '/usr/bin', HOME: '/home/me', GITHUB_ACTIONS: 'true', RUNNER_OS: 'Linux'});
    expect(env.RUNNER_TEMP).toBe(path.join('/job', 'runner-temp'));
    expect(env.GITHUB_WORKSPACE).toBe(path.join('/job', 'workspace'));
    expect(env).not.toHaveProperty('SECRET_TOKEN');
  });

  test('inheritEnv takes everything but NODE_ICU_DATA', () => {
    const env = buildStepEnv({dirs, commandFiles, parentEnv, inheritEnv: true});
    expect(env.SECRET_TOKEN).toBe('x');
    expect(env).not.toHaveProperty('NODE_ICU_DATA');
  });

  test('layers: env over runner vars, inputs and state over env, command files over all', () => {
    const env = buildStepEnv({
      dirs,
      commandFiles,
      parentEnv,
      env: {GITHUB_API_URL: 'http://127.0.0.1:1', INPUT_X: 'from env', GITHUB_OUTPUT: '/elsewhere'},
      inputs: {x: 'from inputs'},
      state: {builder: '{"id":1}'}
    });
    expect(env).toMatchObject({
      GITHUB_API_URL: 'http://127.0.0.1:1',
      INPUT_X: 'from inputs',
      STATE_builder: '{"id":1}',
      GITHUB_OUTPUT: '/job/out'
    });
  });

  test('GITHUB_PATH lines go first in PATH, newest first, each once', () => {
    const env = buildStepEnv({dirs, commandFiles, parentEnv, prependPath: ['/a', '/b', '/a', '/c']});
    expect(env.PATH).toBe(['/c', '/a', '/b', '/usr/bin'].join(path.delimiter));
  });
});
