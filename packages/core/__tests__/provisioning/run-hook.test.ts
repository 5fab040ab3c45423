import {describe, expect, test} from '@jest/globals';
import {CancelledError} from '../../src/lifecycle/cancelled-error.js';
import {POST_STATE_KEYS} from '../../src/provisioning/post-state-keys.js';
import {runHook} from '../../src/provisioning/run-hook.js';
import {FakeActionIO, FakeSignals} from '../fakes/fake-action-io.js';

function harness() {
  const io = new FakeActionIO();
  const signals = new FakeSignals();
  const exits: number[] = [];
  const events: string[] = [];
  const opts = {
    signals: signals.asProcess,
    exit: (code: number) => {
      exits.push(code);
      events.push(`exit:${code}`);
    }
  };
  return {io, signals, exits, events, opts};
}

/** A step body that waits until its signal aborts, then rejects with the reason. */
const untilAborted = (signal: AbortSignal): Promise<never> =>
  new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), {once: true}));

describe('runHook main', () => {
  test('masks the proxy passwords of the environment before the step runs', async () => {
    const h = harness();
    h.io.env['HTTPS_PROXY'] = 'http://jo:pr0xy-pw@proxy.corp:3128';
    let masked: string[] = [];
    await runHook(h.io, 'post', async () => void (masked = [...h.io.logger.secrets]), h.opts);
    expect(masked).toContain('pr0xy-pw');
  });

  test('writes every key post reads, empty, before the step runs (a value planted in the log never reaches post); post writes none', async () => {
    const h = harness();
    let atStart: string[] = [];
    await runHook(
      h.io,
      'main',
      async () => void (atStart = [...h.io.state.values.entries()].map(([k, v]) => `${k}=${v}`)),
      h.opts
    );
    expect(atStart).toEqual(POST_STATE_KEYS.map(k => `${k}=`));
    const post = harness();
    await runHook(post.io, 'post', async () => undefined, post.opts);
    expect(post.io.state.values.size).toBe(0);
  });

  test('success → exit 0, nothing failed, a live signal handed to the step', async () => {
    const h = harness();
    let seen: AbortSignal | undefined;
    await runHook(
      h.io,
      'main',
      async signal => {
        seen = signal;
        h.events.push('fn');
      },
      h.opts
    );
    expect(seen?.aborted).toBe(false);
    expect(h.io.failures).toEqual([]);
    expect(h.events).toEqual(['fn', 'exit:0']);
  });

  test('an error → setFailed with its message, exit 1', async () => {
    const h = harness();
    await runHook(h.io, 'main', () => Promise.reject(new Error('Failed to assign builder: HTTP 500')), h.opts);
    expect(h.io.failures).toEqual(['Failed to assign builder: HTTP 500']);
    expect(h.exits).toEqual([1]);
    expect(h.io.logger.messages('warning')).toEqual([]);
  });

  test('a non-Error thrown value is stringified', async () => {
    const h = harness();
    await runHook(h.io, 'main', () => Promise.reject('plain string'), h.opts);
    expect(h.io.failures).toEqual(['plain string']);
    expect(h.exits).toEqual([1]);
  });

  // prettier-ignore
  test.each<[number, 'SIGINT' | 'SIGTERM']>([
    [1, 'SIGINT'],
    [2, 'SIGTERM']
  ])('[%d] %s aborts the signal with a CancelledError; the step fails with it, exit 1', async (_n, sig) => {
    const h = harness();
    let reason: unknown;
    await runHook(
      h.io,
      'main',
      signal => {
        setImmediate(() => h.signals.send(sig));
        return untilAborted(signal).catch(e => {
          reason = e;
          throw e;
        });
      },
      h.opts
    );
    expect(reason).toBeInstanceOf(CancelledError);
    expect((reason as Error).message).toBe(`Cancelled by ${sig}`);
    expect(h.io.logger.messages('info')).toEqual([`Received ${sig}: cancelling and tearing down what is assigned`]);
    expect(h.io.failures).toEqual([`Cancelled by ${sig}`]);
    expect(h.exits).toEqual([1]);
  });

  test('a second signal is ignored: the first reason stands', async () => {
    const h = harness();
    let reason: unknown;
    await runHook(
      h.io,
      'main',
      async signal => {
        h.signals.send('SIGTERM');
        h.signals.send('SIGINT');
        reason = signal.reason;
      },
      h.opts
    );
    expect((reason as Error).message).toBe('Cancelled by SIGTERM');
    expect(h.io.logger.messages('info')).toEqual(['Received SIGTERM: cancelling and tearing down what is assigned']);
    // The step itself finished cleanly after tearing down: not failed.
    expect(h.exits).toEqual([0]);
  });

  test('signal handlers are installed only while the step runs', async () => {
    const h = harness();
    const during: number[] = [];
    await runHook(
      h.io,
      'main',
      async () => {
        during.push(h.signals.listenerCount('SIGINT'), h.signals.listenerCount('SIGTERM'));
        throw new Error('x');
      },
      h.opts
    );
    expect(during).toEqual([1, 1]);
    expect(h.signals.listenerCount('SIGINT')).toBe(0);
    expect(h.signals.listenerCount('SIGTERM')).toBe(0);
  });
});

describe('runHook post', () => {
  test('an error only warns, exit 0', async () => {
    const h = harness();
    await runHook(h.io, 'post', () => Promise.reject(new Error('teardown exploded')), h.opts);
    expect(h.io.failures).toEqual([]);
    expect(h.io.logger.messages('warning')).toEqual(['post step failed: teardown exploded']);
    expect(h.exits).toEqual([0]);
  });

  test('success → exit 0', async () => {
    const h = harness();
    await runHook(h.io, 'post', async () => undefined, h.opts);
    expect(h.exits).toEqual([0]);
    expect(h.io.logger.lines).toEqual([]);
  });

  // prettier-ignore
  test.each<[number, 'SIGINT' | 'SIGTERM']>([
    [1, 'SIGINT'],
    [2, 'SIGTERM']
  ])('[%d] %s does not abort the cleanup', async (_n, sig) => {
    const h = harness();
    let abortedAfterSignal: boolean | undefined;
    await runHook(
      h.io,
      'post',
      async signal => {
        h.signals.send(sig);
        await new Promise(resolve => setImmediate(resolve));
        abortedAfterSignal = signal.aborted;
        h.events.push('cleanup finished');
      },
      h.opts
    );
    expect(abortedAfterSignal).toBe(false);
    expect(h.io.logger.messages('info')).toEqual([`Received ${sig}: finishing the cleanup first so nothing stays billed`]);
    expect(h.events).toEqual(['cleanup finished', 'exit:0']);
    expect(h.signals.listenerCount(sig)).toBe(0);
  });
});
