import {describe, expect, test} from '@jest/globals';
import {TABLE_ROW_CAP} from '../../src/report/docker-summary.js';
import type {BuildRecordEntry, BuildRecordReport, RunRecord} from '../../src/report/run-record.js';
import {renderRunReport} from '../../src/report/run-report.js';
import {renderStepSummary} from '../../src/report/step-summary.js';
import {byteLength, SUMMARY_LIMIT_BYTES} from '../../src/report/summary-size.js';

const T0 = Date.UTC(2026, 0, 16, 12, 0, 0);
const RUN_URL = 'https://github.com/octo/app/actions/runs/123';

const entry = (over: Partial<BuildRecordEntry> = {}): BuildRecordEntry => ({
  ref: 'k3n9qx2l0w8e7r6t5y4u',
  node: 'builder0',
  name: 'app',
  status: 'completed',
  durationMs: 21_400,
  numCachedSteps: 7,
  numTotalSteps: 9,
  numCompletedSteps: 9,
  ...over
});

const record = (over: Partial<BuildRecordReport> = {}): BuildRecordReport => ({
  fileName: 'octo~app~K3N9QX.dockerbuild',
  sizeBytes: 48_213,
  exportMs: 420,
  entries: [entry()],
  warnings: [],
  upload: {artifactId: 4242, retentionDays: 90},
  ...over
});

const run = (over: Partial<RunRecord> = {}): RunRecord => ({
  action: 'build-push',
  outcome: 'success',
  builders: [
    {
      id: 'bld-1',
      profile: 'ci',
      arch: 'amd64',
      size: '32x64',
      multiArch: false,
      assignedAt: T0,
      readyAt: T0 + 9000,
      buildMs: 30_000,
      tornDownAt: T0 + 45_000,
      teardown: 'torn-down'
    }
  ],
  attempts: [{n: 1, builderIds: ['bld-1'], outcome: 'success', buildMs: 30_000}],
  buildRecord: record(),
  endedAt: T0 + 46_000,
  ...over
});

/** The lines of the docker part: from the top to our block's heading. */
function dockerPart(summary: string): string[] {
  const lines = summary.split('\n');
  return lines.slice(
    0,
    lines.findIndex(l => l.startsWith('### Remote builders:'))
  );
}

describe('renderStepSummary', () => {
  test('success with an uploaded record: docker sections, the artifact link, then ours and a separator', () => {
    const r = run();
    const summary = renderStepSummary(r, {runUrl: RUN_URL, inputs: {context: '.', push: 'true', tags: ['a:1', 'a:2']}});
    expect(dockerPart(summary)).toEqual([
      '## Docker Build summary',
      '',
      "For a detailed look at the build (timing, dependencies, results, logs and traces), download the build record and import it into Docker Desktop's Builds view:",
      '',
      '⬇️ [**octo\\~app\\~K3N9QX.dockerbuild**](https://github.com/octo/app/actions/runs/123/artifacts/4242) (47.08 KiB · includes **1 build record**)',
      '',
      '| ID | Name | Status | Cached | Duration |',
      '| --- | --- | --- | --- | --- |',
      '| `K3N9QX` | **app** | ✅ completed | 78% | 21.4 s |',
      '',
      '<details><summary><strong>Build inputs</strong></summary>',
      '',
      '```yaml',
      'context: .',
      'push: true',
      'tags:',
      '  - a:1',
      '  - a:2',
      '```',
      '',
      '</details>',
      ''
    ]);
    // Ours follows unchanged, and the block ends with docker's separator.
    expect(summary.endsWith(`\n\n${renderRunReport(r)}\n---\n`)).toBe(true);
  });

  test('a record not uploaded says why; export warnings are listed', () => {
    const summary = renderStepSummary(
      run({
        buildRecord: record({
          upload: {skipped: 'DOCKER_BUILD_RECORD_UPLOAD is false'},
          warnings: ['node builder1: gone']
        })
      }),
      {runUrl: RUN_URL}
    );
    expect(dockerPart(summary).slice(2, 7)).toEqual([
      'The build record `octo~app~K3N9QX.dockerbuild` (47.08 KiB · includes **1 build record**) is not attached to this run: DOCKER\\_BUILD\\_RECORD\\_UPLOAD is false.',
      '',
      '- ⚠️ node builder1: gone',
      '',
      '| ID | Name | Status | Cached | Duration |'
    ]);
  });

  test('no record: the reason given, or that the step ended before an export', () => {
    const skipped = renderStepSummary(
      run({buildRecord: {skipped: 'Build summary requires Buildx >= 0.23.0', entries: [], warnings: []}})
    );
    expect(dockerPart(skipped)).toEqual([
      '## Docker Build summary',
      '',
      'No build record: Build summary requires Buildx \\>= 0.23.0.',
      ''
    ]);
    const none = renderStepSummary(run({buildRecord: undefined}));
    expect(dockerPart(none)[2]).toBe('No build record: the step ended before one was exported.');
  });

  test("a failed build: docker's error of the last failed build, quoted; collapsed when over 10 lines", () => {
    const short = renderStepSummary(
      run({
        outcome: 'failure',
        buildRecord: record({
          entries: [
            entry({status: 'failed', error: 'first failure'}),
            entry({ref: 'zzzzzz', status: 'failed', error: 'exit code: 2'})
          ]
        })
      })
    );
    expect(short).toContain(['> **Error**', '>', '> ```text', '> exit code: 2', '> ```'].join('\n'));
    expect(short).not.toContain('first failure');
    expect(short).toContain('| `ZZZZZZ` | **app** | ❌ failed | 78% | 21.4 s |');

    const lines = Array.from({length: 11}, (_, i) => `#${i} step`);
    const long = renderStepSummary(
      run({outcome: 'failure', buildRecord: record({entries: [entry({status: 'failed', error: lines.join('\n')})]})})
    );
    expect(long).toContain(
      ['> <details><summary><strong>Error</strong></summary>', '>', '> ```text', '> #0 step'].join('\n')
    );
    expect(long).toContain(['> #10 step', '> ```', '>', '> </details>'].join('\n'));
  });

  test('bake: the definition, collapsed, after the inputs', () => {
    const definition = '{\n  "target": {\n    "app": {\n      "context": "."\n    }\n  }\n}';
    const summary = renderStepSummary(run({action: 'bake'}), {
      inputs: {targets: ['app']},
      bakeDefinition: {text: `${definition}\n`, unreadBytes: 0}
    });
    const docker = dockerPart(summary).join('\n');
    expect(docker).toContain(
      [
        '<details><summary><strong>Bake definition</strong></summary>',
        '',
        '```json',
        definition,
        '```',
        '',
        '</details>'
      ].join('\n')
    );
    expect(docker.indexOf('Build inputs')).toBeLessThan(docker.indexOf('Bake definition'));
  });

  test('configure builds nothing: our block alone', () => {
    const r = run({action: 'configure', buildRecord: undefined});
    expect(renderStepSummary(r, {inputs: {x: 'y'}})).toBe(renderRunReport(r));
  });

  test('a build name or an error cannot inject markdown or HTML', () => {
    const summary = renderStepSummary(
      run({
        outcome: 'failure',
        buildRecord: record({
          entries: [
            entry({
              name: 'x | <img src=x onerror=alert(1)> [a](http://evil) **b**',
              status: 'failed',
              error: 'boom\n````\n</details>\n<script>alert(1)</script>'
            })
          ]
        })
      })
    );
    expect(summary).toContain(
      '| **x \\| \\<img src=x onerror=alert\\(1\\)\\> \\[a\\]\\(http://evil\\) \\*\\*b\\*\\*** | ❌ failed |'
    );
    // The fence is longer than any backtick run of the error: its lines stay inside the code block.
    expect(summary).toContain(
      ['> `````text', '> boom', '> ````', '> </details>', '> <script>alert(1)</script>', '> `````'].join('\n')
    );
  });

  test('the record link cannot be broken out of', () => {
    const summary = renderStepSummary(run(), {runUrl: 'https://github.com/o/r) [x](http://evil/actions/runs/1'});
    expect(summary).toContain('](https://github.com/o/r%29%20%5Bx%5D%28http://evil/actions/runs/1/artifacts/4242)');
  });

  test('huge inputs, definition and error are cut with a note; the whole summary stays under 1,024 KiB', () => {
    const mib = (line: string): string =>
      Array.from({length: Math.ceil((2 << 20) / line.length)}, () => line).join('\n');
    const summary = renderStepSummary(
      run({
        action: 'bake',
        outcome: 'failure',
        buildRecord: record({
          entries: [
            ...Array.from({length: TABLE_ROW_CAP + 4}, (_, i) => entry({ref: `ref${i}xxxxx`, name: 'n'.repeat(5000)})),
            entry({status: 'failed', error: mib('error line')})
          ]
        })
      }),
      {
        inputs: {'build-args': Array.from({length: 40_000}, (_, i) => `ARG_${i}=${'v'.repeat(40)}`)},
        bakeDefinition: {text: mib('    "context": "."'), unreadBytes: 5 << 20}
      }
    );
    expect(byteLength(summary)).toBeLessThan(SUMMARY_LIMIT_BYTES);
    expect(summary).toContain('… and 5 more builds (all of them are in the build record).');
    const notes = summary.split('\n').filter(l => l.includes('_Cut: the last '));
    expect(notes).toHaveLength(3);
    expect(notes[0]).toMatch(
      /^> _Cut: the last .* MiB \(\d+ lines\) are not shown, .* The whole error is in the step's log\._$/
    );
    expect(notes[1]).toMatch(/\(\d+ lines\) are not shown, .* The inputs are in the workflow's file\._$/);
    // The definition was already read in part: the unread bytes count, its lines are unknown.
    expect(notes[2]).toMatch(/^_Cut: the last [\d.]+ MiB are not shown, .* \("Bake definition" group\)\._$/);
    // Each part still shows its beginning, and ours is whole (booleans: a failure must not print 1 MiB).
    expect(['"context": "."', 'ARG_0=', '> error line', '#### Builders'].filter(s => !summary.includes(s))).toEqual([]);
    expect(summary.endsWith('\n---\n')).toBe(true);
  });

  test('a short error keeps all of it while a huge definition takes the rest of the room', () => {
    const summary = renderStepSummary(
      run({action: 'bake', outcome: 'failure', buildRecord: record({entries: [entry({error: 'short error'})]})}),
      {bakeDefinition: {text: 'x'.repeat(3 << 20), unreadBytes: 0}}
    );
    expect(summary.includes('> **Error**\n>\n> ```text\n> short error\n> ```\n')).toBe(true);
    expect(byteLength(summary)).toBeLessThan(SUMMARY_LIMIT_BYTES);
    expect(byteLength(summary)).toBeGreaterThan(SUMMARY_LIMIT_BYTES - 128 * 1024);
  });
});
