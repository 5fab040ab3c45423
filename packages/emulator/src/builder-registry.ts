import {randomBytes, randomInt, randomUUID} from 'node:crypto';
import {readFileSync} from 'node:fs';
import net from 'node:net';
import {Builder, type BuilderMetadata} from './builder.js';
import {BuilderEndpoint} from './builder-endpoint.js';
import type {BackendSelector, BuildkitBackend} from './buildkit-backend.js';
import type {EmulatorClock} from './clock.js';
import {type BuilderFaultRule, type BuilderFront, type FaultInjector, isBuilderFront} from './faults.js';
import type {Ledger, TerminationReason} from './ledger.js';
import {corruptPem, generateBuilderPki, generateCa, serverNames} from './pki.js';
import type {PkiPool} from './pki-pool.js';
import type {BuilderArch} from './pricing.js';
import {builderArchitectures, type HostFormat, type Profile} from './profiles.js';

export interface BuilderRegistryOpts {
  clock: EmulatorClock;
  ledger: Ledger;
  faults: FaultInjector;
  /** Serves every builder's connections, or picks that backend by the builder's architecture. */
  backend: BuildkitBackend | BackendSelector;
  idleTimeoutMs: number;
  /** Called when a builder terminates itself after its idle time-out. */
  onIdleTimeout?: (builderId: string) => void;
  /** PKIs made ahead (Emulator option `pkiPool`); none: each builder's is made when it is assigned. */
  pkiPool?: PkiPool;
  /** The form of builder ids (Emulator option `builderIds`); default 'prefixed'. */
  builderIds?: BuilderIdForm;
}

/**
 * Forms a builder id may take (the spec shows only that it is a string): 'prefixed' `bld_` + 16 hex digits,
 * 'uuid' a random UUID (upper-cased half the time), 'numeric' a 12-digit number.
 */
export const BUILDER_ID_FORMS = ['prefixed', 'uuid', 'numeric'] as const;
export type BuilderIdForm = (typeof BUILDER_ID_FORMS)[number];

/** BuilderRegistry assigns builders (fresh PKI and a TLS listener each) and keeps every builder ever assigned. */
export class BuilderRegistry {
  readonly #opts: BuilderRegistryOpts;
  readonly #builders = new Map<string, Builder>();
  #closed = false;

  constructor(opts: BuilderRegistryOpts) {
    this.#opts = opts;
  }

  /** Assigns `profile.buildersPerAssignment` builders; each listener is up before this resolves. */
  async assign(profile: Profile): Promise<Builder[]> {
    if (this.#closed) throw new Error('The emulator is closed');
    const assignedAt = this.#opts.clock.now();
    const plans = builderArchitectures(profile).map(arch => ({
      id: this.#newId(),
      arch,
      fault: this.#opts.faults.takeBuilderFault(profile.name)
    }));
    const prepared = await Promise.allSettled(plans.map(p => this.#prepare(p.id, p.arch, profile, p.fault)));
    const ready = prepared.flatMap(r => (r.status === 'fulfilled' ? [r.value] : []));
    const failure = prepared.find(r => r.status === 'rejected');
    if (failure || this.#closed) {
      await Promise.all(ready.map(r => r.endpoint?.close()));
      throw failure ? (failure as PromiseRejectedResult).reason : new Error('The emulator is closed');
    }
    return plans.map((plan, i) => {
      const {endpoint, readyMetadata} = ready[i] as Prepared;
      const builder = new Builder({
        id: plan.id,
        profile,
        arch: plan.arch,
        clock: this.#opts.clock,
        ledger: this.#opts.ledger,
        assignedAt,
        idleTimeoutMs: this.#opts.idleTimeoutMs,
        readyMetadata,
        endpoint,
        behaviour: plan.fault?.behaviour,
        failAfterMs: plan.fault?.afterMs,
        onIdleTimeout: b => this.#opts.onIdleTimeout?.(b.id)
      });
      this.#builders.set(builder.id, builder);
      return builder;
    });
  }

  /** A builder id of the configured form, unused so far. */
  #newId(): string {
    for (;;) {
      const id = newBuilderId(this.#opts.builderIds);
      if (!this.#builders.has(id)) return id;
    }
  }

  get(id: string): Builder | undefined {
    return this.#builders.get(id);
  }

  /** Every builder ever assigned, in assignment order. */
  all(): Builder[] {
    return [...this.#builders.values()];
  }

  /** Terminates every builder not yet terminated and refuses further assignments. */
  async closeAll(reason: TerminationReason): Promise<void> {
    this.#closed = true;
    await Promise.all(this.all().map(b => b.terminate(reason)));
  }

  async #prepare(
    id: string,
    arch: BuilderArch,
    profile: Profile,
    fault: BuilderFaultRule | undefined
  ): Promise<Prepared> {
    // A front fault wins over the profile's front.
    const front: BuilderFront = isBuilderFront(fault?.behaviour) ? fault.behaviour : profile.front;
    const idleMs = (isBuilderFront(fault?.behaviour) ? fault?.idleMs : undefined) ?? profile.frontIdleMs;
    const names = front === 'wrong-server-cert' ? [WRONG_SERVER_NAME] : serverNames(profile.hostName);
    const pki = this.#opts.pkiPool?.take(names) ?? (await generateBuilderPki({label: id, serverNames: names}));
    const metadata: BuilderMetadata = {
      host: '',
      ca: pki.caCert,
      client_cert: pki.clientCert,
      client_key: pki.clientKey
    };
    let endpoint: BuilderEndpoint | undefined;
    if (fault?.behaviour === 'tls-refuse') {
      metadata.host = formatHost(profile.hostFormat, await unusedPort(), profile.hostName);
    } else {
      endpoint = await BuilderEndpoint.listen({
        serverCert: pki.serverCert,
        serverKey: pki.serverKey,
        caCert: pki.caCert,
        backend: typeof this.#opts.backend === 'function' ? this.#opts.backend(arch) : this.#opts.backend,
        onConnectionCountChange: open => this.#builders.get(id)?.connectionsChanged(open),
        // The wrong certificate is in the PKI; the connections are served as usual.
        front: front === 'wrong-server-cert' ? 'keep-open' : front,
        idleMs,
        clock: this.#opts.clock
      });
      metadata.host = formatHost(profile.hostFormat, endpoint.port, profile.hostName);
    }
    switch (fault?.behaviour) {
      case 'missing-pem':
        delete metadata.ca;
        delete metadata.client_cert;
        delete metadata.client_key;
        break;
      case 'malformed-pem':
        metadata.ca = corruptPem(pki.caCert);
        metadata.client_cert = corruptPem(pki.clientCert);
        metadata.client_key = corruptPem(pki.clientKey);
        break;
      case 'tls-wrong-ca':
        metadata.ca = (await generateCa({label: `${id} (wrong)`})).cert;
        break;
    }
    return {endpoint, readyMetadata: metadata};
  }
}

interface Prepared {
  endpoint?: BuilderEndpoint;
  readyMetadata: BuilderMetadata;
}

/** A new builder id of `form` (default: `bld_` + 16 random hex digits). */
export function newBuilderId(form: BuilderIdForm = 'prefixed'): string {
  switch (form) {
    case 'uuid': {
      const id = randomUUID();
      return randomInt(2) === 0 ? id : id.toUpperCase();
    }
    case 'numeric':
      return String(randomInt(100_000_000_000, 1_000_000_000_000));
    default:
      return `bld_${randomBytes(8).toString('hex')}`;
  }
}

/** The only name the 'wrong-server-cert' front's certificate is valid for. */
export const WRONG_SERVER_NAME = 'wrong-host.invalid';

/** `metadata.host` for a port in the profile's format, e.g. `127.0.0.1:PORT` or `tcp://HOST:PORT`. */
export function formatHost(format: HostFormat, port: number, hostName = '127.0.0.1'): string {
  return format === 'tcp' ? `tcp://${hostName}:${port}` : `${hostName}:${port}`;
}

/**
 * A loopback port nothing listens on, for the 'tls-refuse' fault, and that nothing takes by accident: it is
 * drawn below the system's ephemeral range, where listen(0) and outgoing connections get their ports. A
 * port from inside the range (bound, then released) could meet another process's listener a moment later,
 * or a connection to it could get that very port as its source and connect to itself (a TCP self-connect),
 * so that a client expecting "refused" talked to something. Checked free now (bound, then released).
 */
export async function unusedPort(): Promise<number> {
  const low = ephemeralPortsFrom();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = randomInt(Math.max(1024, low - 10_000), low);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port below ${low} after 50 tries`);
}

/** The lowest port of the system's ephemeral range: Linux's ip_local_port_range, else IANA's 49152 (macOS, Windows). */
function ephemeralPortsFrom(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 1024) return low;
  } catch {
    // Not Linux.
  }
  return 49152;
}

/** Whether 127.0.0.1:port can be listened on now (it is released again at once). */
function bindable(port: number): Promise<boolean> {
  return new Promise(resolve => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
