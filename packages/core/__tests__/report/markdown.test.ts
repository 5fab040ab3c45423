import {describe, expect, test} from '@jest/globals';
import {mdCodeBlock, mdTable, mdText} from '../../src/report/markdown.js';

describe('markdown helpers', () => {
  test('mdText escapes what could open a cell, a link, a tag or code, and stays on one line', () => {
    expect(mdText('a|b [x](y) <img src=x> `c` *d*\nnext')).toBe(
      'a\\|b \\[x\\]\\(y\\) \\<img src=x\\> \\`c\\` \\*d\\* next'
    );
    expect(mdText('bld-amd64-7f3c')).toBe('bld-amd64-7f3c');
  });

  test('mdTable', () => {
    expect(mdTable(['A', 'B'], [['1', '2']])).toEqual(['| A | B |', '| --- | --- |', '| 1 | 2 |']);
  });

  // prettier-ignore
  test.each([
    ['no backticks', ['plain'], '```'],
    ['a code span', ['use `x`'], '```'],
    ['a fence in the text', ['```', 'x'], '````'],
    ['a longer run', ['a ````` b'], '``````']
  ])('[%#] mdCodeBlock fences longer than any backtick run: %s', (_why, lines, fence) => {
    const block = mdCodeBlock(lines);
    expect(block).toEqual([`${fence}text`, ...lines, fence]);
  });

  test('mdCodeBlock drops terminal colour codes and stray carriage returns', () => {
    expect(mdCodeBlock(['\x1b[31mERROR\x1b[0m: failed\r'])).toEqual(['```text', 'ERROR: failed', '```']);
  });
});
