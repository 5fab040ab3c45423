// Shared helpers of the emulator tests: loopback HTTP calls and TLS handshakes.
import tls from 'node:tls';
import type {Emulator} from '../src/emulator.js';

export const KEY = 'emulator-key';

export interface CallOpts {
  body?: unknown;
  key?: string | null;
  contentType?: string | null;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** Calls the emulator over loopback HTTP. Bodies that are not strings are sent as JSON. */
export async function call(emu: Emulator, method: string, path: string, opts: CallOpts = {}): Promise<CallResult> {
  const headers: Record<string, string> = {Accept: 'application/json'};
  const key = opts.key === undefined ? KEY : opts.key;
  if (key !== null) headers['Authorization'] = `Bearer ${key}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    const type = opts.contentType === undefined ? 'application/json' : opts.contentType;
    if (type !== null) headers['Content-Type'] = type;
  }
  const res = await fetch(`${emu.url}${path}`, {method, headers, body});
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {status: res.status, headers: res.headers, text, json};
}

/** Assigns from `profile` and returns the builder ids. */
export async function assign(emu: Emulator, profile: string): Promise<string[]> {
  const res = await call(emu, 'POST', '/api/v1/builders/assign', {body: {profile_name: profile}});
  if (res.status !== 200) throw new Error(`assign failed: ${res.status} ${res.text}`);
  return (res.json.builder_instances as {id: string}[]).map(b => b.id);
}

/** The details response body of one builder. */
export async function details(emu: Emulator, id: string) {
  const res = await call(emu, 'GET', `/api/v1/builders/${id}/details`);
  if (res.status !== 200) throw new Error(`details failed: ${res.status} ${res.text}`);
  return res.json as {
    id: string;
    status: string;
    arch: string;
    profile_name: string;
    metadata: {host: string; ca?: string; client_cert?: string; client_key?: string};
  };
}

export interface HandshakeOpts {
  host: string;
  ca?: string;
  cert?: string;
  key?: string;
  alpn?: string[];
}

export type HandshakeResult = {ok: true; alpn: string | false | null} | {ok: false; error: string};

/** A handshake with the material of a builder's details. */
export function handshakeWith(m: {host: string; ca?: string; client_cert?: string; client_key?: string}) {
  return handshake({host: m.host, ca: m.ca, cert: m.client_cert, key: m.client_key});
}

/**
 * Performs a full mutual-TLS handshake. With TLS 1.3 the client finishes before the server has checked the
 * client certificate, so success means the server's session ticket arrived (it is sent only after the
 * server accepted the certificate); a rejection arrives as an alert (error) or a close instead.
 */
export function handshake(opts: HandshakeOpts): Promise<HandshakeResult> {
  const hostPort = opts.host.replace(/^tcp:\/\//, '');
  const i = hostPort.lastIndexOf(':');
  return new Promise(resolve => {
    let done = false;
    let secure = false;
    const finish = (r: HandshakeResult): void => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(r);
    };
    const socket = tls.connect({
      host: hostPort.slice(0, i),
      port: Number(hostPort.slice(i + 1)),
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      ALPNProtocols: opts.alpn ?? ['h2']
    });
    socket.on('secureConnect', () => (secure = true));
    socket.on('session', () => {
      if (secure) finish({ok: true, alpn: socket.alpnProtocol});
    });
    socket.on('error', e => finish({ok: false, error: (e as NodeJS.ErrnoException).code ?? e.message}));
    socket.on('close', () => finish({ok: false, error: 'closed'}));
  });
}

/**
 * Resolves when `cond` holds, polling every 5 ms. No time limit of its own, which a loaded machine could
 * overrun: a condition that never holds fails the test at jest's testTimeout. The poll timer is unref'd so
 * that a poll left behind by such a test never holds the process open.
 */
export async function waitFor(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise(r => setTimeout(r, 5).unref());
}
