import {describe, expect, test} from '@jest/globals';
import {getInputs, Input} from '../src/context.js';

function io(inputs: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  return {getInput: (name: string) => (inputs[name] ?? '').trim(), env};
}

const base = {[Input.ProfileName]: 'p1', [Input.ApiUrl]: 'https://api.example.test/', [Input.ApiKey]: 'key123'};

describe('getInputs', () => {
  test('defaults', () => {
    expect(getInputs(io(base))).toEqual({
      'profile-name': ['p1'],
      'api-url': 'https://api.example.test',
      timeout: 300000,
      use: true,
      'setup-buildx': true,
      credentials: {token: 'key123', source: 'input'},
      'buildx-version': {kind: 'runner'}
    });
  });

  test('profile list, booleans, timeout and env fallbacks', () => {
    const got = getInputs(
      io(
        {
          [Input.ProfileName]: 'fast, slow',
          [Input.Timeout]: '1500',
          [Input.Use]: 'false',
          [Input.SetupBuildx]: 'FALSE',
          [Input.BuildxVersion]: 'v0.19.3'
        },
        {REMOTE_BUILDER_API_URL: 'http://127.0.0.1:9000', REMOTE_BUILDER_RUNNER_TOKEN: 'runner-tok'}
      )
    );
    expect(got).toEqual({
      'profile-name': ['fast', 'slow'],
      'api-url': 'http://127.0.0.1:9000',
      timeout: 1500,
      use: false,
      'setup-buildx': false,
      credentials: {token: 'runner-tok', source: 'runner-token'},
      'buildx-version': {kind: 'release', version: '0.19.3'}
    });
  });

  // prettier-ignore
  test.each([
    [1, {[Input.ProfileName]: ''}, /Input "profile-name": is required/],
    [2, {[Input.Timeout]: '-5'}, /Input "timeout"/],
    [3, {[Input.Timeout]: '0'}, /Input "timeout": must be greater than 0/],
    [4, {[Input.ApiUrl]: 'http://api.example.test'}, /Input "api-url".*plain http/],
    [5, {[Input.ApiKey]: ''}, /Input "api-key": is required/],
    [6, {[Input.Use]: 'yes'}, /Input "use": "yes" is not a boolean/],
    [7, {[Input.SetupBuildx]: '1'}, /Input "setup-buildx"/],
    [8, {[Input.BuildxVersion]: 'nope'}, /Input "buildx-version": "nope" is not a buildx version/]
  ])('[%d] rejects %o', (_n, override, message) => {
    expect(() => getInputs(io({...base, ...override}))).toThrow(message);
  });
});
