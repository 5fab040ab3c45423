import {describe, expect, test} from '@jest/globals';
import {bootErrors, downNodes, parseBuilderInspect, parseInspectPlatforms} from '../../src/docker/builder-inspect.js';
import {missingArchitectures, offeredArchitectures, platformArch} from '../../src/docker/platform-guard.js';
import {versionAtLeast} from '../../src/docker/version-gate.js';

const INSPECT = `Name:          remote-builder-1
Driver:        remote
Last Activity: 2026-01-16 09:45:23 +0000 UTC

Nodes:
Name:             bld_a
Endpoint:         tcp://10.0.0.1:2376
Status:           running
BuildKit version: v0.13.2
Platforms:        linux/amd64*, linux/amd64/v2, linux/386
Labels:
 org.mobyproject.buildkit.worker.executor: oci

Name:      bld_b
Endpoint:  tcp://10.0.0.2:2376
Status:    running
Buildkit:  v0.12.5
Platforms: linux/arm64, linux/arm/v7
`;

describe('parseBuilderInspect', () => {
  test('builder, nodes, BuildKit versions (both spellings), preferred platforms', () => {
    expect(parseBuilderInspect(INSPECT)).toEqual({
      name: 'remote-builder-1',
      driver: 'remote',
      nodes: [
        {
          name: 'bld_a',
          endpoint: 'tcp://10.0.0.1:2376',
          status: 'running',
          buildkit: 'v0.13.2',
          platforms: ['linux/amd64']
        },
        {
          name: 'bld_b',
          endpoint: 'tcp://10.0.0.2:2376',
          status: 'running',
          buildkit: 'v0.12.5',
          platforms: ['linux/arm64', 'linux/arm/v7']
        }
      ]
    });
  });

  test('empty output', () => {
    expect(parseBuilderInspect('')).toEqual({nodes: []});
    expect(parseInspectPlatforms('')).toEqual([]);
  });
});

describe('platform guard', () => {
  // prettier-ignore
  test.each([
    ['linux/amd64', 'amd64'],
    ['linux/arm64/v8', 'arm64'],
    ['arm64', 'arm64'],
    ['linux/x86_64', 'amd64'],
    ['linux/arm/v7', 'arm'],
    ['local', undefined],
    ['linux', undefined]
  ])('%s → %s', (p, arch) => expect(platformArch(p)).toBe(arch));

  test('amd64 nodes also run 386', () => {
    expect([...offeredArchitectures(['linux/amd64'])]).toEqual(['amd64', '386']);
  });

  // prettier-ignore
  test.each([
    [1, ['linux/amd64', 'linux/arm64'], ['linux/amd64'], ['arm64']],
    [2, ['linux/amd64', 'linux/arm64'], ['linux/amd64', 'linux/arm64'], []],
    [3, ['linux/arm64', 'linux/arm64/v8'], [], []],
    [4, ['linux/386'], ['linux/amd64'], []],
    [5, ['linux/riscv64', 'linux/s390x', 'linux/riscv64'], ['linux/arm64'], ['riscv64', 's390x']]
  ])('[%d] %j on %j is missing %j', (_n, requested, offered, missing) => {
    expect(missingArchitectures(requested, offered)).toEqual(missing);
  });
});

describe('versionAtLeast', () => {
  // prettier-ignore
  test.each([
    ['0.13.1', '0.12.0', true],
    ['0.12.0', '0.12.0', true],
    ['0.11.2', '0.12.0', false],
    ['v0.10.0', '0.4.2', true],
    ['1.0.0', '0.15.0', true],
    ['0.4.1', '0.4.2', false],
    ['abcdef1', '0.15.0', true],
    ['unknown', '0.4.2', false]
  ])('%s >= %s: %s', (v, min, ok) => expect(versionAtLeast(v, min)).toBe(ok));
});

// buildx 0.13–0.36 commands/inspect.go: a node buildx could not load or reach prints `Error:` and no status.
const INSPECT_DOWN = `Name:          rb
Driver:        remote

Nodes:
Name:      b1
Endpoint:  tcp://10.0.0.1:2376
Status:    running
Platforms: linux/amd64*

Name:      b2
Endpoint:  tcp://10.0.0.2:2376
Status:    inactive
Platforms: linux/arm64*

Name:      b3
Endpoint:  tcp://10.0.0.3:2376
Error:     listing workers: rpc error: code = Unavailable desc = connection error
`;

describe('downNodes', () => {
  test('a node with a status other than running or an Error line is down; the builder’s own Error is kept', () => {
    const inspected = parseBuilderInspect(INSPECT_DOWN);
    expect(downNodes(inspected).map(n => [n.name, n.status, n.error])).toEqual([
      ['b2', 'inactive', undefined],
      ['b3', undefined, 'listing workers: rpc error: code = Unavailable desc = connection error']
    ]);
    expect(inspected.error).toBeUndefined();
    expect(parseBuilderInspect('Name: rb\nDriver: remote\nError: failed to find driver "x"\n')).toEqual({
      name: 'rb',
      driver: 'remote',
      error: 'failed to find driver "x"',
      nodes: []
    });
  });

  test('output without statuses (another shape) counts no node as down', () => {
    expect(downNodes(parseBuilderInspect('Name: rb\n\nName: b1\nPlatforms: linux/amd64\n'))).toEqual([]);
  });
});

describe('bootErrors', () => {
  test('each booted node’s error by its vertex prefix; a lone node’s under ""', () => {
    const several =
      '#1 [b1 internal] waiting for connection\n#2 [b2 internal] waiting for connection\n#1 DONE 0.1s\n#2 ERROR: context deadline exceeded\n';
    expect([...bootErrors(several)]).toEqual([['b2', 'context deadline exceeded']]);
    expect([...bootErrors('#1 [internal] waiting for connection\n#1 ERROR: tls: bad certificate\n')]).toEqual([
      ['', 'tls: bad certificate']
    ]);
    expect(bootErrors('').size).toBe(0);
  });
});
