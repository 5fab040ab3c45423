import * as http from 'node:http';
import * as https from 'node:https';
import {isIP} from 'node:net';
import type {Duplex} from 'node:stream';
import * as tls from 'node:tls';
import type {ProxyChoice} from './proxy-env.js';
import {tlsFailure} from './proxy-failure.js';
import {authority} from './authority.js';
import {openTunnel} from './proxy-tunnel.js';
import {TransportError} from './transport-error.js';

export interface TunnelAgentOpts extends http.AgentOptions {
  proxy: ProxyChoice;
  /** Trust for an https:// proxy's certificate (default Node's CA store). */
  proxyCa?: string | string[];
}

/** Request options of a tunnel agent: node's, plus a signal that stops opening the tunnel. */
export interface TunnelRequestOptions extends https.RequestOptions {
  tunnelSignal?: AbortSignal;
}

type Callback = (err: Error | null, stream: Duplex) => void;

/** The request options node:tls needs for the handshake with the target; the rest stays out. */
const TLS_KEYS = [
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'ciphers',
  'minVersion',
  'maxVersion',
  'rejectUnauthorized',
  'checkServerIdentity',
  'ALPNProtocols',
  'secureContext'
] as const;

/**
 * HttpsTunnelAgent is a keep-alive https.Agent whose connections are CONNECT tunnels through one proxy, with
 * TLS to the target over them. A connection is handed to node:https only once the handshake is done, so any
 * failure before (proxy or TLS) is provably before the request was sent. `destroy()` also stops tunnels
 * still being opened.
 */
export class HttpsTunnelAgent extends https.Agent {
  readonly #proxy: ProxyChoice;
  readonly #proxyCa?: string | string[];
  readonly #pending = new Set<AbortController>();

  constructor(opts: TunnelAgentOpts) {
    const {proxy, proxyCa, ...agentOpts} = opts;
    super(agentOpts);
    this.#proxy = proxy;
    this.#proxyCa = proxyCa;
  }

  override createConnection(options: TunnelRequestOptions, callback?: Callback): undefined {
    tunnelConnection(
      {proxy: this.#proxy, proxyCa: this.#proxyCa, secure: true, pending: this.#pending},
      options,
      callback
    );
    return undefined;
  }

  override destroy(): void {
    for (const c of this.#pending) c.abort();
    super.destroy();
  }
}

/** HttpTunnelAgent is the same for http targets: the request goes in clear over the tunnel. */
export class HttpTunnelAgent extends http.Agent {
  readonly #proxy: ProxyChoice;
  readonly #proxyCa?: string | string[];
  readonly #pending = new Set<AbortController>();

  constructor(opts: TunnelAgentOpts) {
    const {proxy, proxyCa, ...agentOpts} = opts;
    super(agentOpts);
    this.#proxy = proxy;
    this.#proxyCa = proxyCa;
  }

  override createConnection(options: TunnelRequestOptions, callback?: Callback): undefined {
    tunnelConnection(
      {proxy: this.#proxy, proxyCa: this.#proxyCa, secure: false, pending: this.#pending},
      options,
      callback
    );
    return undefined;
  }

  override destroy(): void {
    for (const c of this.#pending) c.abort();
    super.destroy();
  }
}

interface Through {
  proxy: ProxyChoice;
  proxyCa?: string | string[];
  secure: boolean;
  pending: Set<AbortController>;
}

function tunnelConnection(through: Through, options: TunnelRequestOptions, callback?: Callback): void {
  if (!callback) throw new TypeError('tunnel agents create connections asynchronously: a callback is required');
  const {proxy, secure, pending} = through;
  const host = unbracket(options.host ?? options.hostname ?? 'localhost');
  const port = Number(options.port) || (secure ? 443 : 80);
  const target = authority(host, port);
  const controller = new AbortController();
  const outer = options.tunnelSignal;
  const onOuterAbort = (): void => controller.abort();
  pending.add(controller);
  if (outer?.aborted) controller.abort();
  else outer?.addEventListener('abort', onOuterAbort, {once: true});
  let settled = false;
  const settle = (err: Error | null, stream?: Duplex): void => {
    if (settled) return;
    settled = true;
    pending.delete(controller);
    outer?.removeEventListener('abort', onOuterAbort);
    controller.signal.removeEventListener('abort', onAbort);
    if (err) callback(err, undefined as unknown as Duplex);
    else callback(null, stream as Duplex);
  };
  let handshake: tls.TLSSocket | undefined;
  const onAbort = (): void => {
    handshake?.destroy();
    if (handshake) settle(abortedError(target));
  };
  controller.signal.addEventListener('abort', onAbort, {once: true});

  openTunnel({proxy, host, port, signal: controller.signal, proxyCa: through.proxyCa}).then(
    raw => {
      if (!secure) return settle(null, raw);
      const tlsOpts: tls.ConnectionOptions = {socket: raw, host, port};
      const given = options as Record<string, unknown>;
      for (const k of TLS_KEYS) {
        if (given[k] !== undefined) (tlsOpts as Record<string, unknown>)[k] = given[k];
      }
      const servername = options.servername || host;
      if (isIP(servername) === 0) tlsOpts.servername = servername;
      const socket = tls.connect(tlsOpts);
      handshake = socket;
      const onError = (e: NodeJS.ErrnoException): void => {
        socket.off('secureConnect', onSecure);
        socket.destroy();
        settle(tlsFailure(proxy, target, e));
      };
      const onSecure = (): void => {
        socket.off('error', onError);
        settle(null, socket);
      };
      socket.once('error', onError);
      socket.once('secureConnect', onSecure);
      if (controller.signal.aborted) onAbort();
    },
    (e: unknown) => settle(e instanceof Error ? e : new Error(String(e)))
  );
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function abortedError(target: string): TransportError {
  return new TransportError(`opening the tunnel to ${target} was aborted`, {code: 'EABORTED', notSent: true});
}
