import {describe, expect, test} from '@jest/globals';
import {historyExportArgs} from '../../src/record/record-args.js';
import {recordFileName} from '../../src/record/record-file-name.js';
import {exportPlan} from '../../src/record/record-plan.js';

describe('historyExportArgs', () => {
  // prettier-ignore
  test.each([
    [1, {builder: 'rb', output: '/t/a.dockerbuild', refs: ['r1'], finalize: true},
      ['buildx', 'history', 'export', '--builder', 'rb', '--output', '/t/a.dockerbuild', '--finalize', 'r1']],
    [2, {builder: 'rb', output: '/t/a.dockerbuild', refs: ['r1', 'r2'], finalize: false},
      ['buildx', 'history', 'export', '--builder', 'rb', '--output', '/t/a.dockerbuild', 'r1', 'r2']]
  ])('[%d] %o -> %o', (_n, opts, argv) => {
    expect(historyExportArgs(opts)).toEqual(argv);
  });
});

describe('recordFileName', () => {
  // prettier-ignore
  test.each([
    [1, 'octo/app', ['qwertyuiop'], 'octo~app~QWERTY.dockerbuild'],
    [2, 'octo/app', ['qwertyuiop', 'asdfgh', 'zxcvbn'], 'octo~app~QWERTY+2.dockerbuild'],
    [3, undefined, ['abc'], 'ABC.dockerbuild']
  ])('[%d] %s %o -> %s', (_n, repo, refs, name) => {
    expect(recordFileName(repo, refs)).toBe(name);
  });
});

describe('exportPlan', () => {
  // prettier-ignore
  test.each([
    [1, '0.23.0', {finalize: false, everyNode: false, settleMs: 3000}],
    [2, '0.24.0', {finalize: true, everyNode: false, settleMs: 0}],
    [3, '0.29.1', {finalize: true, everyNode: false, settleMs: 0}],
    [4, '0.33.0', {finalize: true, everyNode: true, settleMs: 0}],
    [5, 'abc1234', {finalize: true, everyNode: true, settleMs: 0}]
  ])('[%d] buildx %s -> %o', (_n, version, plan) => {
    expect(exportPlan(version)).toEqual(plan);
  });
});
