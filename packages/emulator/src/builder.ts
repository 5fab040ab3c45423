import type {BuilderEndpoint, EndpointMode} from './builder-endpoint.js';
import type {EmulatorClock, Timer} from './clock.js';
import type {BuilderBehaviour} from './faults.js';
import type {Ledger, TerminationReason} from './ledger.js';
import type {BuilderArch} from './pricing.js';
import type {Profile} from './profiles.js';

/** A builder's state as the details call reports it. */
export type BuilderStatus = 'pending' | 'ready' | 'failed' | 'terminated';

/**
 * The `metadata` of the details response (spec §2.5). The PEM fields are absent only under the
 * 'missing-pem' fault; while not ready every field is the empty string (the emulator's choice).
 */
export interface BuilderMetadata {
  host: string;
  ca?: string;
  client_cert?: string;
  client_key?: string;
}

/** The details response. Fields beyond `metadata` are not shown in the spec; the emulator's choice. */
export interface BuilderDetails {
  id: string;
  status: BuilderStatus;
  arch: BuilderArch;
  profile_name: string;
  metadata: BuilderMetadata;
}

/** Default delay of the 'fail-after-ms' behaviour when the rule gives no `afterMs`. */
export const DEFAULT_FAIL_AFTER_MS = 1000;

const EMPTY_METADATA: BuilderMetadata = {host: '', ca: '', client_cert: '', client_key: ''};

export interface BuilderOpts {
  id: string;
  profile: Profile;
  arch: BuilderArch;
  clock: EmulatorClock;
  ledger: Ledger;
  /** When the assignment was requested (epoch ms); default now. Readiness counts from here. */
  assignedAt?: number;
  /** Idle period after which the builder terminates itself; not positive or not finite disables it. */
  idleTimeoutMs: number;
  /** The metadata the details call returns once ready (faults already applied). */
  readyMetadata: BuilderMetadata;
  /** The mTLS listener; absent under the 'tls-refuse' fault. */
  endpoint?: BuilderEndpoint;
  /**
   * A lifecycle fault: 'never-ready', 'fail' or 'fail-after-ms' (the others only shape `readyMetadata` or
   * the endpoint's front).
   */
  behaviour?: BuilderBehaviour;
  failAfterMs?: number;
  /** Called once the builder is terminated by its idle time-out. */
  onIdleTimeout?: (builder: Builder) => void;
}

/**
 * Builder is one assigned builder: its state machine (pending → ready → terminated, with failed as a side
 * state), its timers (readiness, injected failure, idle time-out) and its ledger entry.
 */
export class Builder {
  readonly id: string;
  readonly profile: Profile;
  readonly arch: BuilderArch;
  readonly assignedAt: number;
  readonly endpoint?: BuilderEndpoint;
  readonly behaviour?: BuilderBehaviour;
  #status: BuilderStatus = 'pending';
  readonly #opts: BuilderOpts;
  #readyTimer?: Timer;
  #failTimer?: Timer;
  #idleTimer?: Timer;
  #openConnections = 0;

  constructor(opts: BuilderOpts) {
    this.#opts = opts;
    this.id = opts.id;
    this.profile = opts.profile;
    this.arch = opts.arch;
    this.endpoint = opts.endpoint;
    this.behaviour = opts.behaviour;
    this.assignedAt = opts.assignedAt ?? opts.clock.now();
    opts.ledger.open({
      builderId: this.id,
      profile: this.profile.name,
      profileId: this.profile.id,
      size: this.profile.size,
      arch: this.arch,
      assignedAt: this.assignedAt
    });
    if (opts.behaviour !== 'never-ready') {
      const becomeReady = (): void => (opts.behaviour === 'fail' ? this.markFailed() : this.markReady());
      const remaining = this.assignedAt + this.profile.readyDelayMs - opts.clock.now();
      if (remaining > 0) this.#readyTimer = opts.clock.setTimer(becomeReady, remaining);
      else becomeReady();
    }
    this.#armIdleTimer();
  }

  get status(): BuilderStatus {
    return this.#status;
  }

  /** Connections open on the builder's listener. */
  get openConnections(): number {
    return this.#openConnections;
  }

  /** The details response body. */
  details(): BuilderDetails {
    return {
      id: this.id,
      status: this.#status,
      arch: this.arch,
      profile_name: this.profile.name,
      metadata: {...(this.#status === 'ready' ? this.#opts.readyMetadata : EMPTY_METADATA)}
    };
  }

  /** The client key this builder's details hand out (also after termination), for secret scans in tests. */
  issuedClientKey(): string {
    return this.#opts.readyMetadata.client_key ?? '';
  }

  /** Records API activity about this builder: restarts the idle time-out. */
  touch(): void {
    this.#armIdleTimer();
  }

  /** Called by the endpoint; the idle time-out only runs while no connection is open. */
  connectionsChanged(open: number): void {
    this.#openConnections = open;
    this.#armIdleTimer();
  }

  /**
   * Changes how the builder's listener treats connections (see EndpointMode): 'silent' or 'kill' make a
   * builder that died behind its front; the status does not change (the service has not noticed). Throws
   * when the builder has no listener ('tls-refuse'), is failed or terminated (its listener is closed), or
   * the endpoint refuses the change.
   */
  setEndpointMode(mode: EndpointMode): void {
    if (!this.endpoint) throw new Error(`Builder ${this.id} has no listener (its host is a closed port)`);
    if (this.#status === 'failed' || this.#status === 'terminated') {
      throw new Error(`Builder ${this.id} is ${this.#status}; its listener is closed`);
    }
    this.endpoint.setMode(mode);
  }

  /** Makes a pending builder ready now. Throws when failed or terminated; no-op when already ready. */
  markReady(): void {
    if (this.#status === 'terminated' || this.#status === 'failed') {
      throw new Error(`Builder ${this.id} is ${this.#status}`);
    }
    if (this.#status === 'ready') return;
    this.#readyTimer?.cancel();
    this.#status = 'ready';
    this.#opts.ledger.markReady(this.id, this.#opts.clock.now());
    if (this.behaviour === 'fail-after-ms') {
      this.#failTimer = this.#opts.clock.setTimer(
        () => this.markFailed(),
        this.#opts.failAfterMs ?? DEFAULT_FAIL_AFTER_MS
      );
    }
  }

  /**
   * Puts the builder in 'failed': its listener closes and the details show no metadata. It stays assigned and
   * billed until torn down or idle (the emulator's choice). Throws when terminated; no-op when already failed.
   */
  markFailed(): void {
    if (this.#status === 'terminated') throw new Error(`Builder ${this.id} is terminated`);
    if (this.#status === 'failed') return;
    this.#readyTimer?.cancel();
    this.#failTimer?.cancel();
    this.#status = 'failed';
    this.#opts.ledger.markFailed(this.id, this.#opts.clock.now());
    void this.endpoint?.close();
  }

  /** Terminates the builder: billing stops, timers stop, the listener closes. Idempotent. */
  async terminate(reason: TerminationReason): Promise<void> {
    if (this.#status !== 'terminated') {
      this.#status = 'terminated';
      this.#readyTimer?.cancel();
      this.#failTimer?.cancel();
      this.#idleTimer?.cancel();
      this.#opts.ledger.terminate(this.id, this.#opts.clock.now(), reason);
    }
    await this.endpoint?.close();
  }

  #armIdleTimer(): void {
    this.#idleTimer?.cancel();
    this.#idleTimer = undefined;
    const ms = this.#opts.idleTimeoutMs;
    if (this.#status === 'terminated' || this.#openConnections > 0 || !(ms > 0) || !Number.isFinite(ms)) return;
    this.#idleTimer = this.#opts.clock.setTimer(() => {
      void this.terminate('idle-timeout');
      this.#opts.onIdleTimeout?.(this);
    }, ms);
  }
}
