import {readFileSync} from 'node:fs';
import {describe, expect, test} from '@jest/globals';
import {parseCacheReport} from '../../src/docker/cache-report.js';
import {renderRunReport} from '../../src/report/run-report.js';
import type {BuilderRecord, RunRecord} from '../../src/report/run-record.js';

const T0 = Date.UTC(2026, 0, 16, 12, 0, 0);
const S = 1000;

const bakeCold = parseCacheReport(
  readFileSync(new URL('../docker/fixtures/buildx-0.13.1-bake-cold.txt', import.meta.url), 'utf8')
);

const builder = (over: Partial<BuilderRecord> = {}): BuilderRecord => ({
  id: 'bld-1',
  profile: 'default',
  arch: 'amd64',
  size: '16x32',
  multiArch: false,
  assignedAt: T0,
  readyAt: T0 + 12_300,
  buildMs: 125 * S,
  tornDownAt: T0 + 182 * S,
  teardown: 'torn-down',
  ...over
});

const success: RunRecord = {
  action: 'build-push',
  outcome: 'success',
  builders: [builder()],
  attempts: [
    {n: 1, builderIds: ['bld-1'], outcome: 'success', buildMs: 125 * S, cache: {steps: 12, cached: 9, ratio: 0.75}}
  ],
  endedAt: T0 + 183 * S
};

describe('renderRunReport', () => {
  test('success on one builder: the whole summary', () => {
    expect(renderRunReport(success)).toBe(
      [
        '### Remote builders: build-push',
        '',
        '✅ **Succeeded** · ended 2026-01-16 12:03:03Z',
        '',
        '#### Builders',
        '',
        '| Builder | Profile | Arch | Size | Ready after | Build time | Torn down | Billed | Cost |',
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
        '| `bld-1` | default | amd64 | 16x32 | 12.3 s | 2 min 5 s | 12:03:02Z | 3 min 2 s | 0.1820 USD |',
        '',
        '**Total billed:** 3.03 min (3 min 2 s) · **Total cost:** 0.1820 USD',
        '',
        'Cost = price per minute of the builder size (service price table) × billed minutes (assignment → teardown). ' +
          'The service does not say how a part of a minute is charged: fractional minutes are counted as they are.',
        '',
        '- `bld-1`: 0.06 USD/min (16x32: 16 vCPU, 32 GB RAM, 100 GB disk; single-architecture) × 3.0333 min = 0.1820 USD',
        '',
        '#### Attempts',
        '',
        '1. **succeeded** on `bld-1` (build 2 min 5 s)',
        '',
        '#### Cache',
        '',
        '- 12 build steps, 9 from the cache (75%): **warm** builder',
        '',
        '_A builder counts as warm when at least one build step came from its cache, cold otherwise._',
        ''
      ].join('\n')
    );
  });

  test('failure after retries: still-billed warning, bounds, per-target cache, error block with backticks', () => {
    const record: RunRecord = {
      action: 'bake',
      outcome: 'failure',
      phase: 'build',
      errorTail: [
        '#6 ERROR: process "/bin/sh -c echo \\"a `b`\\" && exit 3" did not complete',
        '```',
        'ERROR: failed to solve'
      ],
      builders: [
        builder({
          id: 'bld-a1',
          profile: 'ci-large',
          size: '32x64',
          readyAt: T0 + 14_200,
          buildMs: 95 * S,
          tornDownAt: T0 + 125 * S
        }),
        builder({
          id: 'bld-b1',
          profile: 'ci-large',
          arch: 'amd64,arm64',
          size: '32x64',
          multiArch: true,
          assignedAt: T0 + 130 * S,
          readyAt: T0 + 141 * S,
          buildMs: 62_500,
          tornDownAt: T0 + 215 * S,
          teardown: 'already-gone'
        }),
        {
          id: 'bld-c1',
          profile: 'ci-large',
          assignedAt: T0 + 220 * S,
          readyAt: T0 + 230 * S,
          buildMs: 5 * S,
          teardown: 'failed'
        }
      ],
      attempts: [
        {
          n: 1,
          builderIds: ['bld-a1'],
          outcome: 'infrastructure',
          reason: 'builder bld-a1 closed the connection (EOF)',
          buildMs: 95 * S
        },
        {
          n: 2,
          builderIds: ['bld-b1'],
          outcome: 'unknown',
          reason: 'buildx exited 1',
          buildMs: 62_500,
          ...(bakeCold ? {cache: bakeCold} : {})
        },
        {
          n: 3,
          builderIds: ['bld-c1'],
          outcome: 'user',
          reason: 'RUN exited 3',
          buildMs: 5 * S,
          cache: {steps: 6, cached: 0, ratio: 0}
        }
      ],
      endedAt: T0 + 240 * S
    };
    expect(renderRunReport(record)).toBe(
      [
        '### Remote builders: bake',
        '',
        '❌ **Failed** in phase `build` after 3 attempts · ended 2026-01-16 12:04:00Z',
        '',
        '> 🚨 **Builder `bld-c1` may still be billed**: its teardown failed. A builder is billed until it is terminated; ' +
          'tear it down in the service\'s web UI (builders of profile "ci-large"). Billed so far: ≥ 20.0 s.',
        '',
        '#### Builders',
        '',
        '| Builder | Profile | Arch | Size | Ready after | Build time | Torn down | Billed | Cost |',
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
        '| `bld-a1` | ci-large | amd64 | 32x64 | 14.2 s | 1 min 35 s | 12:02:05Z | 2 min 5 s | 0.2500 USD |',
        '| `bld-b1` | ci-large | amd64,arm64 (multi-arch) | 32x64 | 11.0 s | 1 min 3 s | already gone (12:03:35Z) | ≤ 1 min 25 s | ≤ 0.3400 USD |',
        '| `bld-c1` | ci-large | unknown | unknown | 10.0 s | 5.0 s | ⚠️ **teardown failed** | ≥ 20.0 s, **still billed** | size unknown |',
        '',
        '**Total billed:** ≈ 3.83 min (3 min 50 s) · **Total cost:** unknown (`bld-c1`: size unknown)',
        '',
        'Cost = price per minute of the builder size (service price table) × billed minutes (assignment → teardown). ' +
          'The service does not say how a part of a minute is charged: fractional minutes are counted as they are.',
        '',
        '- `bld-a1`: 0.12 USD/min (32x64: 32 vCPU, 64 GB RAM, 200 GB disk; single-architecture) × 2.0833 min = 0.2500 USD',
        '- `bld-b1`: 0.24 USD/min (32x64: 32 vCPU, 64 GB RAM, 200 GB disk; multi-architecture, twice the price) × ≤ 1.4167 min = ≤ 0.3400 USD',
        '',
        '≤: the builder was already gone when it was torn down, so its billing stopped earlier.',
        '',
        '#### Attempts',
        '',
        '1. **infrastructure failure** on `bld-a1`: builder bld-a1 closed the connection \\(EOF\\) (build 1 min 35 s)',
        '2. **failed (cause unknown)** on `bld-b1`: buildx exited 1 (build 1 min 3 s)',
        '3. **build failed (an error of the build itself)** on `bld-c1`: RUN exited 3 (build 5.0 s)',
        '',
        '#### Cache',
        '',
        '- Attempt 1: not reported',
        '- Attempt 2: 9 build steps, 2 from the cache (22%): **warm** builder',
        '  - target `app`: 6 steps, 0 cached (0%)',
        '  - target `tool`: 5 steps, 2 cached (40%)',
        '- Attempt 3: 6 build steps, 0 from the cache (0%): **cold** builder',
        '',
        '_A builder counts as warm when at least one build step came from its cache, cold otherwise._',
        '',
        '#### Error in phase `build`',
        '',
        '````text',
        '#6 ERROR: process "/bin/sh -c echo \\"a `b`\\" && exit 3" did not complete',
        '```',
        'ERROR: failed to solve',
        '````',
        ''
      ].join('\n')
    );
  });

  const lines = (r: RunRecord): string[] => renderRunReport(r).split('\n');

  // prettier-ignore
  test.each<[string, RunRecord, string[], RegExp[]]>([
    ['all costs unknown (no size, no arch from the service)',
      {...success, builders: [builder({size: undefined, multiArch: undefined, arch: undefined}), builder({id: 'bld-2', size: undefined, multiArch: undefined, arch: undefined})]},
      ['| `bld-1` | default | unknown | unknown | 12.3 s | 2 min 5 s | 12:03:02Z | 3 min 2 s | size unknown |',
       '**Total billed:** 6.07 min (6 min 4 s) · **Total cost:** unknown (`bld-1`: size unknown, `bld-2`: size unknown)'],
      [/USD/, /Cost = price per minute/]],
    ['size known, architecture unknown',
      {...success, builders: [builder({multiArch: undefined})]},
      ['| `bld-1` | default | amd64 | 16x32 | 12.3 s | 2 min 5 s | 12:03:02Z | 3 min 2 s | architecture unknown |',
       '**Total billed:** 3.03 min (3 min 2 s) · **Total cost:** unknown (`bld-1`: architecture unknown)'],
      [/USD/]],
    ['cancelled during the build; torn down',
      {action: 'build-push', outcome: 'cancelled', phase: 'build', builders: [builder({buildMs: 40 * S, tornDownAt: T0 + 60 * S})],
        attempts: [{n: 1, builderIds: ['bld-1'], outcome: 'cancelled', reason: 'the workflow run was cancelled', buildMs: 40 * S}], endedAt: T0 + 61 * S},
      ['🚫 **Cancelled** in phase `build` · ended 2026-01-16 12:01:01Z',
       '| `bld-1` | default | amd64 | 16x32 | 12.3 s | 40.0 s | 12:01:00Z | 1 min | 0.0600 USD |',
       '**Total billed:** 1 min (1 min) · **Total cost:** 0.0600 USD',
       '1. **cancelled** on `bld-1`: the workflow run was cancelled (build 40.0 s)',
       'Not reported: the build output showed no build step (buildx prints them with plain progress).'],
      [/may still be billed/, /#### Error/]],
    ['cancelled before teardown ran: loud, billed at least until the step ended',
      {action: 'build-push', outcome: 'cancelled', builders: [builder({tornDownAt: undefined, teardown: undefined, buildMs: undefined})],
        attempts: [], endedAt: T0 + 30 * S},
      ['> 🚨 **Builder `bld-1` may still be billed**: it was not torn down. A builder is billed until it is terminated; tear it down in the service\'s web UI (builders of profile "default"). Billed so far: ≥ 30.0 s.',
       '| `bld-1` | default | amd64 | 16x32 | 12.3 s | — | ⚠️ **not torn down** | ≥ 30.0 s, **still billed** | ≥ 0.0300 USD |',
       '**Total billed:** ≥ 0.5 min (30.0 s) · **Total cost:** ≥ 0.0300 USD'],
      [/#### Attempts/, /#### Cache/]],
    ['timed out waiting for readiness',
      {action: 'configure', outcome: 'timeout', phase: 'readiness', errorTail: ['Builder bld-1 was not ready after 300000 ms'],
        builders: [builder({readyAt: undefined, buildMs: undefined, tornDownAt: T0 + 301 * S})], attempts: [], endedAt: T0 + 302 * S},
      ['⏱️ **Timed out** in phase `readiness` · ended 2026-01-16 12:05:02Z',
       '| `bld-1` | default | amd64 | 16x32 | not ready | — | 12:05:01Z | 5 min 1 s | 0.3010 USD |',
       '#### Error in phase `readiness`', '```text', 'Builder bld-1 was not ready after 300000 ms'],
      [/#### Cache/]],
    ['failed to assign: nothing billed',
      {action: 'build-push', outcome: 'failure', phase: 'assign', errorTail: ['Failed to assign a builder: HTTP 503: busy'], builders: [], attempts: [], endedAt: T0},
      ['❌ **Failed** in phase `assign` · ended 2026-01-16 12:00:00Z', 'No builder was assigned: nothing was billed.',
       'Failed to assign a builder: HTTP 503: busy'],
      [/Total billed/, /\| Builder \|/]],
    ['configure: no cache section even with attempts',
      {...success, action: 'configure', attempts: [{n: 1, builderIds: ['bld-1'], outcome: 'success'}]},
      ['### Remote builders: configure', '1. **succeeded** on `bld-1`'],
      [/#### Cache/]],
    ['success hides a phase and an error tail',
      {...success, phase: 'build', errorTail: ['old noise']},
      ['✅ **Succeeded** · ended 2026-01-16 12:03:03Z'],
      [/in phase/, /old noise/]],
    ['two builders of one assignment, one per architecture: single price each',
      {...success, builders: [builder(), builder({id: 'bld-2', arch: 'arm64'})]},
      ['| `bld-2` | default | arm64 | 16x32 | 12.3 s | 2 min 5 s | 12:03:02Z | 3 min 2 s | 0.1820 USD |',
       '**Total billed:** 6.07 min (6 min 4 s) · **Total cost:** 0.3640 USD'],
      [/multi-arch/]],
    ['values from outside are escaped',
      {...success, builders: [builder({profile: 'a|b <img>', arch: 'amd64\n| x |'})]},
      ['| `bld-1` | a\\|b \\<img\\> | amd64 \\| x \\| | 16x32 | 12.3 s | 2 min 5 s | 12:03:02Z | 3 min 2 s | 0.1820 USD |'],
      [/<img>/]]
  ])('[%#] %s', (_why, record, present, absent) => {
    const out = lines(record);
    for (const line of present) expect(out).toContain(line);
    for (const re of absent) expect(out.join('\n')).not.toMatch(re);
  });

  test('build-push: the time line, and a Result part with the digest, image id and tags, before the builders', () => {
    const text = renderRunReport({
      ...success,
      timing: {setupMs: 14_100, buildMs: 125 * S},
      result: {
        builder: 'remote-builder-1',
        image: {
          digest: 'sha256:0123456789abcdef',
          imageId: 'sha256:fedcba9876543210',
          tags: ['u/app:1', 'u/app:latest']
        }
      }
    });
    expect(text).toContain(
      [
        '✅ **Succeeded** · ended 2026-01-16 12:03:03Z',
        '',
        '**Time:** setup 14.1 s · build and push 2 min 5 s',
        '',
        '#### Result',
        '',
        // Digests as plain text: the demo and the harness label a fake docker's digests "(simulated)" after them.
        '- **Digest:** sha256:0123456789abcdef',
        '- **Image ID:** sha256:fedcba9876543210',
        '- **Tags:** `u/app:1`, `u/app:latest`',
        '',
        'buildx builder `remote-builder-1`.',
        '',
        '#### Builders'
      ].join('\n')
    );
  });

  test('build-push with nothing pushed or loaded, no tags, tags over the cap counted', () => {
    expect(renderRunReport({...success, result: {image: {tags: []}}})).toContain(
      '- **Digest:** none (no image pushed or loaded)\n- **Tags:** none\n'
    );
    expect(renderRunReport({...success, result: {image: {tags: ['a'], moreTags: 3}}})).toContain(
      '- **Tags:** `a` and 3 more\n'
    );
  });

  test("bake: a table of targets with platforms and digests, the builder's default and none when not given", () => {
    const text = renderRunReport({
      ...success,
      action: 'bake',
      result: {
        targets: [
          {name: 'api', platforms: ['linux/amd64', 'linux/arm64'], digest: 'sha256:0123456789abcdef'},
          {name: 'docs', platforms: []}
        ],
        moreTargets: 1
      }
    });
    expect(text).toContain(
      [
        '#### Result',
        '',
        '| Target | Platforms | Digest |',
        '| --- | --- | --- |',
        '| `api` | linux/amd64, linux/arm64 | sha256:0123456789abcdef |',
        "| `docs` | builder's default | none |",
        '',
        '… and 1 more target.',
        '',
        '#### Builders'
      ].join('\n')
    );
  });

  test('a local fallback builder: its name and why no remote builder could be had', () => {
    expect(
      renderRunReport({...success, result: {builder: 'fb-1', fallback: 'the service answered 503', image: {tags: []}}})
    ).toContain('Local fallback builder `fb-1` (docker-container, on this runner): the service answered 503.\n');
  });

  test('only the measured times: configure has setup alone; no timing, no time line; no result, no Result part', () => {
    expect(renderRunReport({...success, action: 'configure', timing: {setupMs: 9 * S}})).toContain(
      '\n**Time:** setup 9.0 s\n'
    );
    const plain = renderRunReport(success);
    expect(plain).not.toContain('**Time:**');
    expect(plain).not.toContain('#### Result');
  });

  test('a failure before anything was assigned: the short block, what failed, the error, what to do', () => {
    const early: RunRecord = {
      action: 'bake',
      outcome: 'failure',
      phase: 'local checks',
      errorTail: ['Failed to resolve the bake definition: open docker-bake.hcl: no such file or directory'],
      builders: [],
      attempts: [],
      endedAt: T0
    };
    expect(renderRunReport(early)).toBe(
      [
        '### Remote builders: bake',
        '',
        '❌ **Failed** in phase `local checks` · ended 2026-01-16 12:00:00Z',
        '',
        "Nothing was assigned: **nothing was billed**. Fix what the error names on the runner (docker, buildx) or in the build's own files (the Dockerfile, the bake file), then re-run the job.",
        '',
        '#### Error in phase `local checks`',
        '',
        '```text',
        'Failed to resolve the bake definition: open docker-bake.hcl: no such file or directory',
        '```',
        ''
      ].join('\n')
    );
    expect(renderRunReport({...early, phase: 'inputs'})).toContain(
      "**nothing was billed**. Fix the input the error names (the step's `with:`), then re-run the job.\n"
    );
    // A phase after the assignment keeps the whole block, even with no builder left in the record.
    expect(renderRunReport({...early, phase: 'assign'})).toContain('#### Builders');
  });

  test('an error line of a minified file is cut', () => {
    const text = renderRunReport({...success, outcome: 'failure', errorTail: ['x'.repeat(5000)]});
    expect(text).toContain(`\n${'x'.repeat(2000)}… (3000 more characters)\n`);
  });

  test('is pure: the same record renders the same text', () => {
    expect(renderRunReport(success)).toBe(renderRunReport(structuredClone(success)));
  });
});
