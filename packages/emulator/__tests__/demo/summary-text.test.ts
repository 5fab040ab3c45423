import {describe, expect, test} from '@jest/globals';
import {summaryToText} from '../../src/demo/summary-text.js';

describe('summaryToText: a job summary as terminal text', () => {
  test('an error block in a quote: no fence drawn, its lines verbatim, even tags and pipes', () => {
    const summary = [
      '> **Error**',
      '>',
      '> ````text',
      '> process "/bin/sh -c make" failed | exit code: 2',
      '> ```',
      '> <script>alert(1)</script>',
      '> ````',
      '',
      '#### Error in phase `build`',
      '',
      '```text',
      'ERROR: failed to solve',
      '```'
    ].join('\n');
    expect(summaryToText(summary)).toEqual([
      '│ Error',
      '',
      '│     process "/bin/sh -c make" failed | exit code: 2',
      '│     ```',
      '│     <script>alert(1)</script>',
      '',
      'Error in phase build',
      '────────────────────',
      '',
      '    ERROR: failed to solve'
    ]);
  });

  test("collapsed sections, docker's table with escaped cells, the record link", () => {
    const summary = [
      '## Docker Build summary',
      '',
      '⬇️ [**octo\\~app\\~K3N9QX.dockerbuild**](https://github.com/octo/app/actions/runs/1/artifacts/9) (2 KiB)',
      '',
      '| ID | Name | Status |',
      '| --- | --- | --- |',
      '| `K3N9QX` | **a \\| b \\<c\\>** | ✅ completed |',
      '',
      '<details><summary><strong>Build inputs</strong></summary>',
      '',
      '```yaml',
      'tags:',
      '  - a:1',
      '```',
      '',
      '</details>'
    ].join('\n');
    expect(summaryToText(summary)).toEqual([
      'Docker Build summary',
      '════════════════════',
      '',
      '⬇️ octo~app~K3N9QX.dockerbuild (https://github.com/octo/app/actions/runs/1/artifacts/9) (2 KiB)',
      '',
      'ID      Name       Status',
      '──────  ─────────  ───────────',
      'K3N9QX  a | b <c>  ✅ completed',
      '',
      '▸ Build inputs',
      '',
      '    tags:',
      '      - a:1'
    ]);
  });
});
