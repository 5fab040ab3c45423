import type {Duplex} from 'node:stream';
import {proxyFor, ProxyConfigError, type ProxyChoice, type ProxyEnv} from './proxy-env.js';
import {openTunnel} from './proxy-tunnel.js';

/** The readiness probe's `connect` option: opens the stream the mutual-TLS handshake runs over. */
export type BuilderConnect = (signal?: AbortSignal) => Promise<Duplex>;

export interface BuilderConnectorOpts {
  /** The builder's host (metadata.host without the port). */
  host: string;
  port: number;
  /** Default process.env. */
  env?: ProxyEnv;
}

/** How the readiness probe reaches a builder, and what to tell the user about it. */
export interface BuilderRoute {
  /** The probe's `connect` option; undefined: a direct TCP connection. */
  connect?: BuilderConnect;
  /**
   * Set when the environment names a proxy for the builder's address that buildx will not use: one line for
   * the log, naming the variable (never its credentials).
   */
  note?: string;
}

/**
 * How the readiness probe must reach a builder at tcp://host:port: the way buildx's remote driver will, which
 * is always directly, whatever HTTPS_PROXY / NO_PROXY say. From the sources:
 * - docker/buildx driver/remote/driver.go (v0.13.0 to v0.36.1 and master 461836b): `Client()` passes
 *   `client.WithContextDialer(… d.Dial(ctx))`; `Dial()` opens `util.DialContext(ctx, "tcp", host:port)`, a
 *   plain `net.Dialer{}` (driver/remote/util/dialer_unix.go), then `tls.Client(conn, cfg)`.
 * - moby/buildkit client/client.go (v0.32.2, vendored by buildx; same on master): `WithContextDialer` becomes
 *   `grpc.WithContextDialer(wd.dialer)`, the connection is `grpc.DialContext(ctx, "host:port", …)`. Before
 *   buildx v0.13, buildkit's `resolveDialer` installed its own "basic dialer" (`net.Dialer`) for tcp:// too.
 * - grpc/grpc-go v1.82.1 (the version both vendor), resolver_wrapper.go: "The delegating resolver is used
 *   unless: A custom dialer is provided via WithContextDialer dialoption" (the delegating resolver is what
 *   reads HTTPS_PROXY via `http.ProxyFromEnvironment`, internal/resolver/delegatingresolver); and
 *   internal/transport/http2_client.go `dial()`: `if fn != nil { … return fn(ctx, address) }` before
 *   `proxyattributes.Get` / `proxyDial` (internal/transport/proxy.go, the CONNECT handshake). Documentation/
 *   proxy.md: "proxy support is implemented in the default dialer".
 * So a builder reachable only through the proxy fails in buildx as it fails here; `note` says why.
 */
export function builderRoute(opts: BuilderConnectorOpts): BuilderRoute {
  let proxy: ProxyChoice | undefined;
  try {
    // What grpc-go's default dialer would have used: the https proxy variables and NO_PROXY.
    proxy = proxyFor(`https://${bracketed(opts.host)}:${opts.port}`, opts.env ?? process.env);
  } catch (e) {
    if (!(e instanceof ProxyConfigError)) throw e;
    return {};
  }
  if (!proxy) return {};
  return {
    note:
      `${proxy.variable} is set, but buildx connects to remote builders directly (its remote driver has its own ` +
      `dialer, which gRPC does not send through a proxy): the runner must reach ${bracketed(opts.host)}:${opts.port} without it`
  };
}

/** The readiness probe's `connect` option for a builder: `builderRoute(opts).connect` (undefined: direct). */
export function builderConnector(opts: BuilderConnectorOpts): BuilderConnect | undefined {
  return builderRoute(opts).connect;
}

/** A `connect` option that reaches host:port through a CONNECT tunnel of `proxy` (for probes that must). */
export function tunnelConnector(opts: {proxy: ProxyChoice; host: string; port: number}): BuilderConnect {
  return signal => openTunnel({proxy: opts.proxy, host: opts.host, port: opts.port, ...(signal ? {signal} : {})});
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
