// actionsLogger on @actions/core: what reaches the runner's log, byte for byte.
import {expect, jest, test} from '@jest/globals';
import {actionsLogger} from '../../src/adapters/actions.js';
import type {AnnotationProperties} from '../../src/logger.js';

function stdoutOf(fn: () => void): string {
  const out: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    out.push(String(chunk));
    return true;
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return out.join('');
}

// prettier-ignore
test.each([
  ['a plain warning', 'disk: 90%', undefined, '::warning::disk: 90%25\n'],
  ['an annotation: properties in @actions/core order, escaped', 'a\nb', {startLine: 3, file: 'app/Dockerfile', title: 'x, y: z'}, '::warning title=x%2C y%3A z,file=app/Dockerfile,line=3::a%0Ab\n'],
  ['every property', 'm', {title: 't', file: 'f', startLine: 1, endLine: 2, startColumn: 3, endColumn: 4}, '::warning title=t,file=f,line=1,endLine=2,col=3,endColumn=4::m\n']
] as [string, string, AnnotationProperties | undefined, string][])('%s', (_name, message, properties, line) => {
  expect(stdoutOf(() => actionsLogger.warning(message, properties))).toBe(line);
});
