import {abortReason} from '../../src/clock.js';
import {TlsProbeError, type TlsProbeOpts} from '../../src/lifecycle/tls-probe.js';

/** One scripted probe outcome: success, a thrown error, or a function of the call. */
export type ProbeStep = 'ok' | Error | ((opts: TlsProbeOpts) => void | Promise<void>);

/**
 * FakeProbe replays outcomes per host (the last one repeats; no script = success) and records every
 * call. `onCall` runs first, e.g. to snapshot the secrets registered so far.
 */
export class FakeProbe {
  readonly calls: TlsProbeOpts[] = [];
  onCall?: (opts: TlsProbeOpts) => void;
  readonly #steps = new Map<string, ProbeStep[]>();

  on(hostname: string, ...steps: ProbeStep[]): this {
    this.#steps.set(hostname, [...(this.#steps.get(hostname) ?? []), ...steps]);
    return this;
  }

  /** The TlsProbe function to inject. */
  readonly probe = async (opts: TlsProbeOpts): Promise<void> => {
    this.calls.push(opts);
    this.onCall?.(opts);
    if (opts.signal?.aborted) throw new TlsProbeError('aborted', `aborted: ${abortReason(opts.signal).message}`);
    const steps = this.#steps.get(opts.hostname) ?? [];
    const step = steps.length > 1 ? steps.shift() : steps[0];
    if (step === undefined || step === 'ok') return;
    if (step instanceof Error) throw step;
    await step(opts);
  };
}

export const unreachable = (hostPort = '10.0.0.1:1234'): TlsProbeError =>
  new TlsProbeError('unreachable', `nothing accepts TLS connections at ${hostPort} yet (ECONNREFUSED)`, 'ECONNREFUSED');

export const rejected = (hostPort = '10.0.0.1:1234'): TlsProbeError =>
  new TlsProbeError(
    'rejected',
    `the mutual-TLS handshake with ${hostPort} failed: certificate signature failure`,
    'ERR_SSL_CERT'
  );
