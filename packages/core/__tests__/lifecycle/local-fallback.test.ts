import {describe, expect, test} from '@jest/globals';
import {Buildx, BuildxError} from '../../src/buildx/buildx.js';
import {ApiError, InputError} from '../../src/errors.js';
import {CancelledError} from '../../src/lifecycle/cancelled-error.js';
import {
  createLocalFallbackBuilder,
  FALLBACK_BUILDER_STATE,
  fallbackReason,
  removeLocalFallbackBuilder
} from '../../src/lifecycle/local-fallback.js';
import {BuilderFailedError, BuilderTimeoutError} from '../../src/lifecycle/readiness.js';
import {MemoryStateStore} from '../../src/state.js';
import {FakeExec, subcommand} from '../fakes/fake-exec.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

const http = (status: number): ApiError => new ApiError({call: 'assign builder', status});

describe('fallbackReason', () => {
  // prettier-ignore
  test.each<[number, string, unknown, string | undefined]>([
    [1, '500', http(500), 'the service answered HTTP 500'],
    [2, '503 after retries', http(503), 'the service answered HTTP 503'],
    [3, '429', http(429), 'the service answered HTTP 429'],
    [4, '409', http(409), 'the service answered HTTP 409'],
    [5, '408', http(408), 'the service answered HTTP 408'],
    [6, 'no answer', new ApiError({call: 'assign builder', code: 'ETIMEDOUT'}), 'the service did not answer (ETIMEDOUT)'],
    [7, 'never ready', new BuilderTimeoutError('b1', 'not ready'), 'no remote builder was ready within the timeout'],
    [8, 'failed', new BuilderFailedError('b1', 'failed'), 'the remote builder failed'],
    [9, '400', http(400), undefined],
    [10, '401', http(401), undefined],
    [11, '403', http(403), undefined],
    [12, '404 unknown profile', http(404), undefined],
    [13, '422', http(422), undefined],
    [14, 'bad input', new InputError('timeout', 'bad'), undefined],
    [15, 'cancelled', new CancelledError('Cancelled by SIGINT'), undefined],
    [16, 'local buildx', new BuildxError('Failed to create'), undefined],
    [17, 'anything else', new Error('EACCES'), undefined],
    [18, 'a list of profiles: the last one decides', new Error('profile "a": …; …', {cause: http(502)}), 'the service answered HTTP 502'],
    [19, 'a list ending in a refused key', new Error('profile "a": …; …', {cause: http(401)}), undefined],
    [20, 'a timeout wrapped with its hint', new Error('… raise "timeout"', {cause: new BuilderTimeoutError('', 'x')}), 'no remote builder was ready within the timeout'],
    [21, 'not an error', 'boom', undefined]
  ])('[%d] %s', (_n, _what, e, want) => {
    expect(fallbackReason(e)).toBe(want);
  });
});

describe('createLocalFallbackBuilder', () => {
  test('buildx create --driver docker-container, then inspect --bootstrap; the name is in state first', async () => {
    const state = new MemoryStateStore();
    const seen: string[] = [];
    const exec = new FakeExec(c => {
      seen.push(`${subcommand(c.args)}:${state.get(FALLBACK_BUILDER_STATE)}`);
      return subcommand(c.args) === 'inspect' ? {stdout: 'Name: x\nDriver: docker-container\n'} : {};
    });
    const local = await createLocalFallbackBuilder({exec, logger: new RecordingLogger(), state, name: 'rb-fb'});
    expect(exec.argvs).toEqual([
      ['buildx', 'create', '--name', 'rb-fb', '--driver', 'docker-container'],
      ['buildx', 'inspect', '--bootstrap', '--builder', 'rb-fb']
    ]);
    expect(seen).toEqual(['create:rb-fb', 'inspect:rb-fb']);
    expect(local).toEqual({name: 'rb-fb', inspectOutput: 'Name: x\nDriver: docker-container\n'});
  });

  test('without a name: remote-builder-fallback-<8 hex>', async () => {
    const local = await createLocalFallbackBuilder({
      exec: new FakeExec(),
      logger: new RecordingLogger(),
      state: new MemoryStateStore()
    });
    expect(local.name).toMatch(/^remote-builder-fallback-[0-9a-f]{8}$/);
  });

  test('a failing create is a BuildxError with docker’s last line; the name stays in state for post', async () => {
    const state = new MemoryStateStore();
    const exec = new FakeExec(() => ({exitCode: 1, stderr: 'ERROR: permission denied\n'}));
    await expect(
      createLocalFallbackBuilder({exec, logger: new RecordingLogger(), state, name: 'rb-fb'})
    ).rejects.toThrow(new BuildxError('Failed to create the local fallback builder "rb-fb": ERROR: permission denied'));
    expect(state.get(FALLBACK_BUILDER_STATE)).toBe('rb-fb');
  });
});

describe('removeLocalFallbackBuilder', () => {
  const setup = (stderr = '', exitCode = 0) => {
    const state = new MemoryStateStore();
    const logger = new RecordingLogger();
    const exec = new FakeExec(() => ({exitCode, stderr}));
    return {state, logger, exec, buildx: new Buildx({exec, logger})};
  };

  test('nothing recorded → nothing run', async () => {
    const h = setup();
    await removeLocalFallbackBuilder(h);
    expect(h.exec.calls).toEqual([]);
  });

  test('recorded → buildx rm, forgotten in state', async () => {
    const h = setup();
    h.state.save(FALLBACK_BUILDER_STATE, 'rb-fb');
    await removeLocalFallbackBuilder(h);
    expect(h.exec.argvs).toEqual([['buildx', 'rm', 'rb-fb']]);
    expect(h.logger.messages('info')).toEqual(['Removed the local fallback builder "rb-fb"']);
    expect(h.state.get(FALLBACK_BUILDER_STATE)).toBe('');
  });

  test('already gone → said so, no warning', async () => {
    const h = setup('ERROR: no builder "rb-fb" found\n', 1);
    h.state.save(FALLBACK_BUILDER_STATE, 'rb-fb');
    await removeLocalFallbackBuilder(h);
    expect(h.logger.messages('info')).toEqual(['The local fallback builder "rb-fb" is already gone']);
    expect(h.logger.messages('warning')).toEqual([]);
  });

  test('a failing rm warns with the command to run, and keeps it in state', async () => {
    const h = setup('ERROR: cannot stop container\n', 1);
    h.state.save(FALLBACK_BUILDER_STATE, 'rb-fb');
    await removeLocalFallbackBuilder(h);
    expect(h.logger.messages('warning')).toEqual([
      'Failed to remove buildx builder "rb-fb": ERROR: cannot stop container; remove it with: docker buildx rm rb-fb'
    ]);
    expect(h.state.get(FALLBACK_BUILDER_STATE)).toBe('rb-fb');
  });
});
