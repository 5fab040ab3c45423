import type net from 'node:net';
import tls from 'node:tls';
import type {BuildkitBackend} from './buildkit-backend.js';

export interface BuilderEndpointOpts {
  /** Server certificate and key (PEM) and the CA that signs accepted client certificates. */
  serverCert: string;
  serverKey: string;
  caCert: string;
  backend: BuildkitBackend;
  /** Called with the number of open (authenticated) connections whenever it changes. */
  onConnectionCountChange?: (open: number) => void;
  /** Listen address; default 127.0.0.1. */
  host?: string;
}

/**
 * BuilderEndpoint is one builder's mutual-TLS listener: it requires a client certificate signed by the
 * builder's own CA, offers ALPN h2 and http/1.1 (gRPC-Go clients insist on h2), and hands every
 * authenticated connection to the BuildKit backend.
 */
export class BuilderEndpoint {
  readonly #server: tls.Server;
  readonly #sockets = new Set<net.Socket>();
  readonly #onCount: (open: number) => void;
  #open = 0;
  #accepted = 0;
  #rejected = 0;
  #closing?: Promise<void>;
  #port = 0;

  private constructor(server: tls.Server, onCount: (open: number) => void) {
    this.#server = server;
    this.#onCount = onCount;
  }

  /** Creates the listener on an ephemeral port and resolves once it listens. */
  static async listen(opts: BuilderEndpointOpts): Promise<BuilderEndpoint> {
    const server = tls.createServer({
      cert: opts.serverCert,
      key: opts.serverKey,
      ca: [opts.caCert],
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2', 'http/1.1'],
      minVersion: 'TLSv1.2'
    });
    const endpoint = new BuilderEndpoint(server, opts.onConnectionCountChange ?? (() => undefined));
    server.on('connection', socket => endpoint.#track(socket));
    server.on('secureConnection', socket => endpoint.#accept(socket, opts.backend));
    server.on('tlsClientError', (_err, socket) => {
      endpoint.#rejected += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, opts.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        endpoint.#port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
    return endpoint;
  }

  /** The TCP port the listener is bound to. */
  get port(): number {
    return this.#port;
  }

  /** Connections currently open past the handshake. */
  get openConnections(): number {
    return this.#open;
  }

  /** Connections accepted since the start. */
  get acceptedConnections(): number {
    return this.#accepted;
  }

  /** Handshakes that failed (no or foreign client certificate, protocol errors). */
  get rejectedHandshakes(): number {
    return this.#rejected;
  }

  /** Stops listening and destroys every connection. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>(resolve => {
      this.#server.close(() => resolve());
      for (const s of this.#sockets) s.destroy();
    });
    return this.#closing;
  }

  #track(socket: net.Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  #accept(socket: tls.TLSSocket, backend: BuildkitBackend): void {
    this.#accepted += 1;
    this.#open += 1;
    this.#onCount(this.#open);
    socket.on('close', () => {
      this.#open -= 1;
      this.#onCount(this.#open);
    });
    if (this.#closing) {
      socket.destroy();
      return;
    }
    backend.serve(socket);
  }
}
