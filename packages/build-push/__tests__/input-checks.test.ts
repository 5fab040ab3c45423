// Inputs build-push checks itself, before anything is assigned: platforms (as buildx parses them), call (the
// methods buildx knows) and fallback.
import {describe, expect, test} from '@jest/globals';
import {getInputs, Input} from '../src/context.js';

function inputs(values: Record<string, string>) {
  return getInputs({
    getInput: (name: string) => (values[name] ?? (name === Input.ProfileName ? 'p' : '')).trim(),
    env: {
      GITHUB_REPOSITORY: 'octo-org/octo-repo',
      REMOTE_BUILDER_API_URL: 'https://api.example.test',
      REMOTE_BUILDER_API_KEY: 'test-key'
    }
  });
}

describe('platforms', () => {
  // prettier-ignore
  test.each<[string, string[]]>([
    ['linux/amd64', ['linux/amd64']],
    ['linux/amd64,linux/arm64', ['linux/amd64', 'linux/arm64']],
    ['linux/arm/v7', ['linux/arm/v7']],
    ['linux/arm64/v8', ['linux/arm64/v8']],
    ['arm64', ['arm64']],
    ['linux', ['linux']],
    ['local', ['local']],
    ['windows/amd64', ['windows/amd64']],
    ['linux/riscv64', ['linux/riscv64']]
  ])('%o is accepted as %o', (platforms, expected) => {
    expect(inputs({platforms}).platforms).toEqual(expected);
  });

  test.each(['linux//arm64', 'linux/amd64;linux/arm64', 'windows98', 'linux/arm/v7/x', 'linux/amd 64', '/arm64'])(
    '%o is refused, naming the input and the form',
    platform => {
      expect(() => inputs({platforms: platform})).toThrow(
        /^Input "platforms": ".*" is not a platform: use os\/arch\[\/variant\], e\.g\. linux\/amd64 or linux\/arm64/
      );
    }
  );
});

describe('call', () => {
  test.each(['build', 'check', 'lint', 'outline', 'targets', 'check,format=json', 'outline,ignorestatus=true'])(
    '%o is accepted as given',
    call => {
      expect(inputs({call}).call).toBe(call);
    }
  );

  // prettier-ignore
  test.each<[string, RegExp]>([
    ['bogus', /Input "call": "bogus" is not a build method: use build, check, outline, targets \(or leave it empty to build\)/],
    ['format=json', /Input "call": "format=json" is not a build method/],
    ['check,outline', /Input "call": "check,outline" names two methods/],
    ['check,colour=red', /Input "call": "colour=red" is not a field of call/],
    ['check,ignorestatus=maybe', /Input "call": "ignorestatus=maybe" is not a boolean/]
  ])('%o is refused', (call, error) => {
    expect(() => inputs({call})).toThrow(error);
  });
});

describe('fallback', () => {
  test('none by default, local when asked', () => {
    expect(inputs({}).fallback).toBe('none');
    expect(inputs({fallback: 'local'}).fallback).toBe('local');
  });

  test('anything else is refused', () => {
    expect(() => inputs({fallback: 'remote'})).toThrow(/Input "fallback": "remote" is not a fallback/);
  });
});
