// A small HTTP forward proxy for tests: CONNECT tunnels and absolute-form requests, its own host map (the
// names only it can resolve, like a corporate proxy's DNS), optional Basic authentication, failure modes and
// a log of what it was asked.
import http from 'node:http';
import net from 'node:net';
import type {Duplex} from 'node:stream';

/** forward: do the job; refuse: 403 to everything; stall: accept and never answer; reset: close at once. */
export type ForwardProxyMode = 'forward' | 'refuse' | 'stall' | 'reset';

export interface ForwardProxyOpts {
  /** Names the proxy resolves: name (any case) → IP address. IP literals need no entry; other names get 502. */
  hosts?: Record<string, string>;
  /** When set, requests need `Proxy-Authorization: Basic` with these credentials; else 407. */
  auth?: {username: string; password: string};
  /** Default 'forward'. */
  mode?: ForwardProxyMode;
  /** Listen address; default 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
}

/** One request the proxy got, in arrival order. */
export interface ForwardProxyLogEntry {
  /** CONNECT, or the method of an absolute-form request. */
  method: string;
  /** `host:port` asked for. */
  target: string;
  /** The proxy's answer: 200 for an open tunnel, the upstream status for a forwarded request, 0 for none. */
  status: number;
  /** The authenticated user, when credentials were sent and accepted. */
  user?: string;
}

const REALM = 'forward-proxy';

/** ForwardProxy is a real HTTP proxy on loopback, started by tests. */
export class ForwardProxy {
  readonly #server: http.Server;
  readonly #hosts: Map<string, string>;
  readonly #auth?: {username: string; password: string};
  /** Every open socket: clients' and upstream. */
  readonly #sockets = new Set<Duplex>();
  readonly #clients = new Set<net.Socket>();
  readonly #log: ForwardProxyLogEntry[] = [];
  #mode: ForwardProxyMode;
  #url = '';

  private constructor(opts: ForwardProxyOpts) {
    this.#hosts = new Map(Object.entries(opts.hosts ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    this.#auth = opts.auth;
    this.#mode = opts.mode ?? 'forward';
    this.#server = http.createServer((req, res) => this.#forward(req, res));
    this.#server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#connect(req, socket, head)
    );
    this.#server.on('connection', (s: net.Socket) => {
      this.#track(s);
      this.#clients.add(s);
      s.once('close', () => this.#clients.delete(s));
    });
  }

  /** Starts listening; resolves once bound. */
  static async start(opts: ForwardProxyOpts = {}): Promise<ForwardProxy> {
    const proxy = new ForwardProxy(opts);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
        proxy.#server.off('error', reject);
        resolve();
      });
    });
    const {address, port, family} = proxy.#server.address() as net.AddressInfo;
    proxy.#url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
    return proxy;
  }

  /** `http://127.0.0.1:PORT`. */
  get url(): string {
    return this.#url;
  }

  /** The URL with credentials, percent-encoded: `http://user:pass@127.0.0.1:PORT`. */
  urlWith(username: string, password: string): string {
    const u = new URL(this.#url);
    u.username = encodeURIComponent(username);
    u.password = encodeURIComponent(password);
    return u.href.replace(/\/$/, '');
  }

  setMode(mode: ForwardProxyMode): void {
    this.#mode = mode;
  }

  /** Every request so far. */
  log(): ForwardProxyLogEntry[] {
    return this.#log.map(e => ({...e}));
  }

  /** Targets of the tunnels opened so far (CONNECT answered 200), in order. */
  tunnels(): string[] {
    return this.#log.filter(e => e.method === 'CONNECT' && e.status === 200).map(e => e.target);
  }

  /** Connections from clients still open. */
  openConnections(): number {
    return this.#clients.size;
  }

  /** Stops listening and cuts every connection, tunnels included. */
  async close(): Promise<void> {
    const closed = new Promise<void>(resolve => this.#server.close(() => resolve()));
    for (const s of this.#sockets) s.destroy();
    this.#server.closeAllConnections();
    await closed;
  }

  #connect(req: http.IncomingMessage, client: Duplex, head: Buffer): void {
    const target = req.url ?? '';
    const entry: ForwardProxyLogEntry = {method: 'CONNECT', target, status: 0};
    this.#log.push(entry);
    client.on('error', () => undefined);
    const refusal = this.#refusal(req, entry);
    if (refusal === 'stall') {
      // Read (and drop) so the client's hang-up is seen.
      client.resume();
      client.once('end', () => client.destroy());
      return;
    }
    if (refusal === 'reset') return void client.destroy();
    if (refusal) return void this.#answer(client, entry, ...refusal);
    const parsed = splitAuthority(target);
    const address = parsed ? this.#resolve(parsed.host) : undefined;
    if (!parsed || !address) return void this.#answer(client, entry, 502, `cannot resolve ${target}`);
    const upstream = net.connect(parsed.port, address);
    this.#track(upstream);
    upstream.once('error', () => {
      if (entry.status === 0) this.#answer(client, entry, 502, `cannot connect to ${target}`);
      else client.destroy();
    });
    upstream.once('connect', () => {
      entry.status = 200;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
  }

  #forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    let url: URL | undefined;
    try {
      url = new URL(req.url ?? '');
    } catch {
      url = undefined;
    }
    const target = url ? `${url.hostname}:${url.port || '80'}` : (req.url ?? '');
    const entry: ForwardProxyLogEntry = {method: req.method ?? 'GET', target, status: 0};
    this.#log.push(entry);
    const refusal = this.#refusal(req, entry);
    if (refusal === 'stall') return;
    if (refusal === 'reset') return void req.socket.destroy();
    if (refusal) return void respond(res, entry, ...refusal);
    if (!url || url.protocol !== 'http:') return void respond(res, entry, 400, 'absolute http:// URL expected');
    const address = this.#resolve(url.hostname);
    if (!address) return void respond(res, entry, 502, `cannot resolve ${url.hostname}`);
    // RFC 9112 §3.2.2: with an absolute-form target, the target's authority replaces any Host header.
    const headers: http.OutgoingHttpHeaders = {...req.headers, host: url.host};
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request(
      {host: address, port: Number(url.port) || 80, method: req.method, path: url.pathname + url.search, headers},
      up => {
        entry.status = up.statusCode ?? 0;
        res.writeHead(entry.status, up.headers);
        up.pipe(res);
      }
    );
    upstream.on('error', () => {
      if (!res.headersSent) respond(res, entry, 502, `cannot connect to ${target}`);
      else res.destroy();
    });
    req.pipe(upstream);
  }

  /** What to do instead of forwarding, if anything: a status and reason, or a mode. */
  #refusal(req: http.IncomingMessage, entry: ForwardProxyLogEntry): [number, string] | 'stall' | 'reset' | undefined {
    if (this.#mode === 'stall' || this.#mode === 'reset') return this.#mode;
    if (this.#auth) {
      const user = basicUser(req.headers['proxy-authorization'], this.#auth);
      if (user === undefined) return [407, 'proxy authentication required'];
      entry.user = user;
    }
    if (this.#mode === 'refuse') return [403, 'forbidden by proxy policy'];
    return undefined;
  }

  #resolve(host: string): string | undefined {
    const bare = host.startsWith('[') ? host.slice(1, -1) : host;
    if (net.isIP(bare)) return bare;
    return this.#hosts.get(bare.toLowerCase()) ?? (bare.toLowerCase() === 'localhost' ? '127.0.0.1' : undefined);
  }

  #answer(client: Duplex, entry: ForwardProxyLogEntry, status: number, reason: string): void {
    entry.status = status;
    const extra = status === 407 ? `Proxy-Authenticate: Basic realm="${REALM}"\r\n` : '';
    const body = `${reason}\n`;
    client.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n${extra}Content-Type: text/plain\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
    );
  }

  #track(s: Duplex): void {
    this.#sockets.add(s);
    s.once('close', () => this.#sockets.delete(s));
  }
}

function respond(res: http.ServerResponse, entry: ForwardProxyLogEntry, status: number, reason: string): void {
  entry.status = status;
  const headers: http.OutgoingHttpHeaders = {'Content-Type': 'text/plain', Connection: 'close'};
  if (status === 407) headers['Proxy-Authenticate'] = `Basic realm="${REALM}"`;
  res.writeHead(status, headers);
  res.end(`${reason}\n`);
}

/** `host:port` of a CONNECT request line; IPv6 in brackets. */
function splitAuthority(authority: string): {host: string; port: number} | undefined {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  if (!m) return undefined;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? {host: m[1] as string, port} : undefined;
}

/** The user of valid Basic credentials, else undefined. */
function basicUser(header: string | undefined, auth: {username: string; password: string}): string | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const [user, password] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
  return user === auth.username && password === auth.password ? user : undefined;
}
