import {describe, expect, test} from '@jest/globals';
import {guardPlatforms, type PlatformHolder} from '../../src/provisioning/platform-shortfall.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

const holder = (nodes: string[][], from: Partial<PlatformHolder> = {}): PlatformHolder => ({
  name: 'b',
  nodes: nodes.map(platforms => ({platforms})),
  ...from
});

function guard(target: PlatformHolder, requests: {who: string; platforms: string[]}[]) {
  const logger = new RecordingLogger();
  let error: Error | undefined;
  try {
    guardPlatforms(target, requests, {logger, what: '--platforms'});
  } catch (e) {
    error = e as Error;
  }
  return {error: error?.message, warnings: logger.messages('warning'), debug: logger.messages('debug')};
}

describe('guardPlatforms: the one platform guard', () => {
  // prettier-ignore
  test.each([
    [1, 'arm64 on an amd64 node, from a profile', holder([['linux/amd64']], {profile: 'p'}), ['linux/arm64'],
      '--platforms asks for arm64, but no node of builder "b" offers it (it has amd64, 386); builds for it would fail with "exec format error". Fix: enable arm64 on builder profile "p" in the web UI, or leave it out of --platforms'],
    [2, 'a builder the user gave; the offered platform is listed', holder([['linux/amd64']]), ['linux/amd64', 'linux/arm64/v8'],
      '--platforms asks for arm64 (platforms linux/amd64,linux/arm64/v8), but no node of builder "b" offers it (it has amd64, 386); builds for it would fail with "exec format error". Fix: use a builder with a arm64 node (e.g. made by the configure action from a profile with arm64 enabled), or leave it out of --platforms'],
    [3, 'a local fallback builder, two architectures', holder([['linux/amd64']], {fallback: 'why'}), ['linux/arm64', 'linux/s390x'],
      '--platforms asks for arm64, s390x, but no node of builder "b" offers them (it has amd64, 386); builds for them would fail with "exec format error". Fix: install QEMU for arm64 and s390x on the runner (docker/setup-qemu-action) so the local fallback builder can emulate it, or leave them out of --platforms'],
    [4, 'every architecture offered (aliases, variants, 386 on amd64)', holder([['linux/amd64'], ['linux/arm64']]), ['linux/arm64/v8', 'linux/386', 'linux/x86_64', 'arm64'], undefined],
    [5, 'nothing requested', holder([['linux/amd64']]), [], undefined]
  ])('[%d] %s', (_n, _title, target, platforms, error) => {
    expect(guard(target, [{who: '--platforms', platforms}]).error).toBe(error);
  });

  test('several requests (bake targets): each short one is named', () => {
    const res = guard(holder([['linux/amd64']]), [
      {who: 'Bake target "a"', platforms: ['linux/amd64']},
      {who: 'Bake target "b"', platforms: ['linux/arm64']},
      {who: 'Bake target "c"', platforms: ['linux/amd64', 'linux/riscv64']}
    ]);
    expect(res.error).toMatch(
      /^Bake target "b" asks for arm64; Bake target "c" asks for riscv64 \(platforms linux\/amd64,linux\/riscv64\), but no node of builder "b" offers them /
    );
  });

  test('nodes that report no platforms: nothing checked; a warning for a profile builder, a debug line otherwise', () => {
    const note = 'Cannot check --platforms against builder "b": its nodes report no platforms';
    expect(guard(holder([[]], {profile: 'p'}), [{who: '--platforms', platforms: ['linux/arm64']}])).toEqual({
      error: undefined,
      warnings: [note],
      debug: []
    });
    expect(guard(holder([[]]), [{who: '--platforms', platforms: ['linux/arm64']}])).toEqual({
      error: undefined,
      warnings: [],
      debug: [note]
    });
  });
});
