import {readFileSync} from 'node:fs';
import {describe, expect, test} from '@jest/globals';
import {isWarm, parseCacheReport} from '../../src/docker/cache-report.js';

/** Real buildx 0.13.1 output (see fixtures/README.md for how each was captured). */
const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/buildx-0.13.1-${name}.txt`, import.meta.url), 'utf8');

describe('parseCacheReport on captured buildx output', () => {
  // prettier-ignore
  test.each<[string, number, number, boolean]>([
    ['build-cold', 6, 0, false],
    ['build-warm', 6, 6, true],
    ['build-partial', 6, 3, true],
    ['build-default-progress-piped', 6, 0, false],
    ['build-multiplatform-cold', 12, 3, true],      // a step per platform; names repeated after "#9 ..."
    ['build-multiplatform-warm', 12, 12, true],
    ['build-failure', 3, 2, true],                  // the step after the failing one never started
    ['build-cancelled', 3, 2, true],                // CANCELED is not cached
    ['build-many-steps', 12, 2, true],              // padded numbers: "[ 1/12]"
    ['build-from-cold', 3, 0, false],               // FROM (pulled) is not a step
    ['build-from-warm', 3, 3, true]                 // FROM prints "DONE 0.0s" on a warm build: still 100%
  ])('[%#] %s: %d steps, %d cached', (name, steps, cached, warm) => {
    const report = parseCacheReport(fixture(name));
    expect(report).toEqual({steps, cached, ratio: cached / steps});
    expect(isWarm(report)).toBe(warm);
  });

  test('bake of two targets, cold: a step both targets share is counted once in the total and under each target', () => {
    expect(parseCacheReport(fixture('bake-cold'))).toEqual({
      steps: 9,
      cached: 2,
      ratio: 2 / 9,
      targets: {
        app: {steps: 6, cached: 0, ratio: 0},
        tool: {steps: 5, cached: 2, ratio: 2 / 5}
      }
    });
  });

  test('bake of two targets, warm', () => {
    expect(parseCacheReport(fixture('bake-warm'), {targets: ['app', 'tool']})).toEqual({
      steps: 9,
      cached: 9,
      ratio: 1,
      targets: {app: {steps: 6, cached: 6, ratio: 1}, tool: {steps: 3, cached: 3, ratio: 1}}
    });
  });

  test('the same output with CRLF line ends', () => {
    expect(parseCacheReport(fixture('build-partial').replace(/\n/g, '\r\n'))).toEqual({
      steps: 6,
      cached: 3,
      ratio: 0.5
    });
  });
});

describe('parseCacheReport on edge cases', () => {
  test('no report without build steps: empty, quiet, rawjson, internal vertices only', () => {
    expect(parseCacheReport('')).toBeUndefined();
    expect(
      parseCacheReport('sha256:4f4fb700ef54461cfa02571ae0db9a0dc1e0cdb5577484a6d75e68dc38e8acc1\n')
    ).toBeUndefined();
    expect(
      parseCacheReport('{"vertexes":[{"digest":"sha256:1","name":"[2/3] RUN make","cached":true}]}\n')
    ).toBeUndefined();
    const internalOnly = ['#1 [internal] load build definition from Dockerfile', '#1 DONE 0.0s', ''].join('\n');
    expect(parseCacheReport(internalOnly)).toBeUndefined();
  });

  test('a log line that reads CACHED does not make a step cached: the ending printed last wins', () => {
    const out = ['#5 [2/2] RUN echo CACHED', '#5 CACHED', '#5 DONE 0.1s', ''].join('\n');
    expect(parseCacheReport(out)).toEqual({steps: 1, cached: 0, ratio: 0});
  });

  test('a log line that looks like a step name is not a new step', () => {
    const out = [
      '#4 [1/1] RUN docker build .',
      '#4 0.2 #3 [2/9] RUN make',
      '#4 [2/9] RUN make',
      '#4 DONE 3.0s',
      ''
    ].join('\n');
    expect(parseCacheReport(out)).toEqual({steps: 1, cached: 0, ratio: 0});
  });

  test('a step never finished (output cut short) is a step, not a cached one', () => {
    const out = ['#4 [1/2] COPY . /src', '#4 CACHED', '', '#5 [2/2] RUN make', '#5 0.5 compiling', ''].join('\n');
    expect(parseCacheReport(out)).toEqual({steps: 2, cached: 1, ratio: 0.5});
  });

  test('ONBUILD FROM is not a step; ONBUILD RUN is', () => {
    const out = ['#2 [1/2] ONBUILD FROM base', '#2 CACHED', '', '#3 [2/2] ONBUILD RUN make', '#3 CACHED', ''].join(
      '\n'
    );
    expect(parseCacheReport(out)).toEqual({steps: 1, cached: 1, ratio: 1});
  });

  test('a single target whose stage has a target-like name gets no per-target split', () => {
    const out = ['#4 [app 1/2] COPY . /src', '#4 CACHED', '', '#5 [app 2/2] RUN make', '#5 DONE 1.0s', ''].join('\n');
    expect(parseCacheReport(out)).toEqual({steps: 2, cached: 1, ratio: 0.5});
    expect(parseCacheReport(out, {targets: ['app']})).toEqual({steps: 2, cached: 1, ratio: 0.5});
  });

  test('bake targets named by the caller split the steps even when no "[target internal]" vertex was printed', () => {
    const out = [
      '#4 [app build 1/2] COPY . /src',
      '#4 CACHED',
      '',
      '#5 [web 1/1] RUN make',
      '#5 DONE 1.0s',
      '',
      '#6 [app linux/arm64 build 2/2] RUN make',
      '#6 DONE 1.0s',
      ''
    ].join('\n');
    expect(parseCacheReport(out)?.targets).toBeUndefined();
    expect(parseCacheReport(out, {targets: ['app', 'web']})?.targets).toEqual({
      app: {steps: 2, cached: 1, ratio: 0.5},
      web: {steps: 1, cached: 0, ratio: 0}
    });
  });

  test('targets found from "[target platform internal]" vertices of a multi-platform bake', () => {
    const out = [
      '#1 [app linux/arm64 internal] load metadata for docker.io/library/alpine:3.20',
      '#1 DONE 0.3s',
      '',
      '#2 [linux/amd64 internal] load metadata for docker.io/library/alpine:3.20',
      '#2 DONE 0.3s',
      '',
      '#3 [app linux/arm64 2/2] RUN make',
      '#3 CACHED',
      ''
    ].join('\n');
    expect(parseCacheReport(out)).toEqual({
      steps: 1,
      cached: 1,
      ratio: 1,
      targets: {app: {steps: 1, cached: 1, ratio: 1}}
    });
  });

  test('isWarm without a report is unknown', () => {
    expect(isWarm(undefined)).toBeUndefined();
  });
});
