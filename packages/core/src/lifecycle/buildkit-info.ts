import type {ClientHttp2Session} from 'node:http2';
import {connect as tlsConnect} from 'node:tls';
import {BinaryReader, WireType} from '@bufbuild/protobuf/wire';
import {systemClock} from '../clock.js';
import {errorMessage} from '../errors.js';
import {grpcCall} from '../net/grpc-call.js';
import {builderTlsOptions, type TlsProbeOpts} from './tls-probe.js';

/**
 * Asks a builder's BuildKit for its version with one gRPC call, `moby.buildkit.v1.Control/Info`, over HTTP/2
 * on its mutual-TLS endpoint: what `buildx inspect --bootstrap` asks each node for (BuildKit's
 * api/services/control/control.proto, unchanged from v0.11 to v0.32). It is asked as soon as the details are
 * complete, before readiness has proved the builder: the answer spares the bootstrap's process, and the
 * connection that carried it spares readiness its TLS probe (`proved`: one mutual-TLS handshake per builder
 * instead of two). Any other outcome (UNIMPLEMENTED on BuildKit < 0.11, a front with no gRPC behind it, a
 * reset, the time limit) is a reason, never an error: the caller asks again or runs `buildx inspect
 * --bootstrap` as before, and readiness probes.
 */

/** Where and how to reach the builder: as for its TLS probe, always over a direct connection. */
export type BuildkitInfoOpts = Omit<TlsProbeOpts, 'connect'>;

/**
 * The version a builder's BuildKit reported, or why none was had; `proved` when the builder's HTTP/2 server
 * spoke (its SETTINGS frame came) over the mutual-TLS connection, an error answer included: what readiness's
 * TLS probe proves, so readiness need not probe again (absent: not proved).
 */
export type BuildkitInfo = ({version: string} | {version?: undefined; why: string}) & {proved?: boolean};

/** How the lifecycle asks a ready builder for its BuildKit version; tests inject their own. */
export type BuildkitInfoCall = (opts: BuildkitInfoOpts) => Promise<BuildkitInfo>;

const INFO_PATH = '/moby.buildkit.v1.Control/Info';

type Http2 = typeof import('node:http2');
let http2: Promise<Http2> | undefined;

/**
 * node:http2, loaded on first use rather than with the bundle, where it cost ~6 ms of every step's start
 * before its first request; the lifecycle starts loading it (preloadBuildkitInfo) while it waits on the
 * service, so that the first call does not wait for it either.
 */
export function preloadBuildkitInfo(): Promise<Http2> {
  return (http2 ??= import('node:http2'));
}

/** Longest answer read: an InfoResponse is a few hundred bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;

export const grpcBuildkitInfo: BuildkitInfoCall = async opts => {
  const where = `${opts.hostname}:${opts.port}`;
  let session: ClientHttp2Session | undefined;
  // The server's SETTINGS come only after it accepted our certificate and TLS's server identity was verified
  // (tls.connect's defaults): the probe's proof (tls-probe.ts).
  let proved = false;
  try {
    const limit = (opts.clock ?? systemClock).deadline(opts.timeoutMs, {
      parents: [opts.signal],
      reason: () => new Error(`no answer within ${opts.timeoutMs} ms`)
    });
    const version = await limit.run(async signal => {
      const {connect} = await preloadBuildkitInfo();
      // Ended while loading: no session may outlive the call (the finally below has run).
      signal.throwIfAborted();
      session = openSession(connect, opts);
      session.once('remoteSettings', () => (proved = true));
      return callInfo(session, signal);
    });
    return {version, proved};
  } catch (e) {
    return {why: `BuildKit at ${where} did not tell its version (Control/Info): ${errorMessage(e)}`, proved};
  } finally {
    // Nothing may keep the step's process alive: the session goes whatever happened.
    session?.destroy();
  }
};

function openSession(connect: Http2['connect'], opts: BuildkitInfoOpts): ClientHttp2Session {
  const session = connect(`https://${opts.hostname}:${opts.port}`, {
    createConnection: () => tlsConnect(builderTlsOptions(opts))
  });
  // Errors reach the call through its stream; this keeps a late one from going unhandled.
  session.on('error', () => undefined);
  return session;
}

async function callInfo(session: ClientHttp2Session, signal: AbortSignal): Promise<string> {
  const [answer] = await grpcCall(session, {
    path: INFO_PATH,
    request: new Uint8Array(),
    signal,
    maxBytes: MAX_ANSWER_BYTES
  });
  if (answer === undefined) throw new Error('an answer without a gRPC message');
  return readInfoResponse(answer);
}

/**
 * The version in an InfoResponse: field 1 `buildkitVersion` (moby.buildkit.v1.types.BuildkitVersion), whose
 * field 2 is `version` (e.g. "v0.13.2"). Unknown fields are skipped, as protobuf readers do.
 */
export function readInfoResponse(bytes: Uint8Array): string {
  let version: string | undefined;
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wire] = reader.tag();
    if (field === 1 && wire === WireType.LengthDelimited) version = readVersion(reader.bytes()) ?? version;
    else reader.skip(wire, field);
  }
  if (!version) throw new Error('an InfoResponse without a BuildKit version');
  return version;
}

function readVersion(bytes: Uint8Array): string | undefined {
  let version: string | undefined;
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wire] = reader.tag();
    if (field === 2 && wire === WireType.LengthDelimited) version = reader.string();
    else reader.skip(wire, field);
  }
  return version;
}
