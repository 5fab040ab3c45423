import http, {type IncomingMessage, type ServerResponse} from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import {ADMIN_PREFIX, type EmulatorControls, handleAdmin} from './admin-routes.js';
import {type ApiRequest, matchRoute, type ServiceApi} from './api-routes.js';
import {type EmulatorClock, sleep, type Timer} from './clock.js';
import type {ApiFaultRule, FaultInjector} from './faults.js';
import {apiError, BodyTooLargeError, type HttpResult, readBody, writeResult} from './http.js';
import type {RequestLog} from './request-log.js';

export interface ApiServerOpts {
  service: ServiceApi;
  controls: EmulatorControls;
  faults: FaultInjector;
  requestLog: RequestLog;
  clock: EmulatorClock;
  /** Current added latency of API responses, read per request. */
  latencyMs: () => number;
  /** Called after each API request is settled (for CLI logs). */
  onRequest?: (line: string) => void;
  /** Serve HTTPS with this certificate and key (PEM) instead of HTTP. */
  tls?: {cert: string; key: string};
}

/**
 * ApiServer is the emulator's HTTP (with `tls`, HTTPS) front: `/api/v1/*` goes through the request log, fault
 * injection and latency to the ServiceApi; `/_emulator/*` goes to the admin routes, unrecorded and undelayed.
 */
export class ApiServer {
  readonly #opts: ApiServerOpts;
  readonly #server: http.Server | https.Server;
  readonly #timers = new Set<Timer>();
  readonly #hung = new Set<ServerResponse>();
  #closed = false;

  constructor(opts: ApiServerOpts) {
    this.#opts = opts;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.#dispatch(req, res).catch((e: unknown) => {
        writeResult(res, apiError(500, 'internal', e instanceof Error ? e.message : String(e)));
      });
    };
    this.#server = opts.tls
      ? https.createServer({cert: opts.tls.cert, key: opts.tls.key}, handler)
      : http.createServer(handler);
  }

  /** Starts listening; resolves once bound. */
  async listen(host: string, port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
  }

  /** The bound address. */
  address(): net.AddressInfo {
    return this.#server.address() as net.AddressInfo;
  }

  /** Stops listening, drops hung and pending requests and every keep-alive connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) t.cancel();
    this.#timers.clear();
    const closed = new Promise<void>(resolve => this.#server.close(() => resolve()));
    for (const res of this.#hung) res.destroy();
    this.#hung.clear();
    this.#server.closeAllConnections();
    await closed;
  }

  async #dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const method = req.method ?? 'GET';
    if (url.pathname === ADMIN_PREFIX || url.pathname.startsWith(`${ADMIN_PREFIX}/`)) {
      let body: Buffer;
      try {
        body = await readBody(req);
      } catch (e) {
        return writeResult(res, bodyError(e));
      }
      return writeResult(res, handleAdmin(this.#opts.controls, method, url.pathname, body));
    }
    await this.#api(req, res, method, url);
  }

  async #api(req: IncomingMessage, res: ServerResponse, method: string, url: URL): Promise<void> {
    const {clock, faults, service} = this.#opts;
    const record = this.#opts.requestLog.add({
      at: clock.now(),
      method,
      path: url.pathname,
      status: 0,
      route: 'unknown'
    });
    const settle = (status: number): void => {
      record.status = status;
      this.#opts.onRequest?.(`${method} ${url.pathname} -> ${status || 'no response'}`);
    };
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (e) {
      const result = bodyError(e);
      settle(result.status);
      return writeResult(res, result);
    }
    const apiReq: ApiRequest = {
      method,
      url,
      headers: {authorization: req.headers.authorization, 'content-type': req.headers['content-type']},
      body
    };
    const match = matchRoute(method, url.pathname);
    const subject = service.subject(match, apiReq);
    record.route = subject.route;
    if (subject.builderId !== undefined) record.builderId = subject.builderId;
    if (subject.profile !== undefined) record.profile = subject.profile;

    const fault = faults.takeApiFault(subject);
    if (fault) record.faultId = fault.id;
    await this.#delay(fault?.delayMs ?? 0);
    if (this.#closed) return;

    const action = fault ? faultAction(fault) : 'pass';
    let result: HttpResult | undefined;
    if (action === 'pass' || fault?.processFirst) {
      try {
        result = await service.handle(match, apiReq);
      } catch (e) {
        result = apiError(500, 'internal', e instanceof Error ? e.message : String(e));
      }
    }
    await this.#delay(this.#opts.latencyMs());
    if (this.#closed) return;

    if (action === 'reset') {
      settle(0);
      req.socket.destroy();
      return;
    }
    if (action === 'hang') {
      settle(0);
      this.#hung.add(res);
      res.on('close', () => this.#hung.delete(res));
      return;
    }
    if (action === 'respond') result = faultResponse(fault as ApiFaultRule & {id: string});
    if (fault?.appendEntries && result) result = withAppendedEntries(result, fault.appendEntries);
    const final = result as HttpResult;
    settle(final.status);
    writeResult(res, final);
  }

  #delay(ms: number): Promise<void> {
    return sleep(this.#opts.clock, ms, this.#timers);
  }
}

type FaultAction = 'pass' | 'respond' | 'reset' | 'hang';

/** A rule with neither action, status nor body only delays; with status or body it responds. */
function faultAction(rule: ApiFaultRule): FaultAction {
  if (rule.action) return rule.action;
  return rule.status !== undefined || rule.body !== undefined ? 'respond' : 'pass';
}

function faultResponse(rule: ApiFaultRule & {id: string}): HttpResult {
  const status = rule.status ?? 500;
  const body = rule.body ?? {error: {code: 'injected_fault', message: `Fault ${rule.id} injected by the emulator`}};
  return {status, body, headers: rule.headers};
}

/**
 * The real answer with entries added to its `builder_instances` (an odd but legal assign answer: entries the
 * client cannot use next to the builders the emulator really assigned and bills).
 */
function withAppendedEntries(result: HttpResult, entries: unknown[]): HttpResult {
  const body = result.body;
  if (
    typeof body !== 'object' ||
    body === null ||
    !Array.isArray((body as Record<string, unknown>).builder_instances)
  ) {
    return result;
  }
  const list = (body as {builder_instances: unknown[]}).builder_instances;
  return {...result, body: {...body, builder_instances: [...list, ...entries]}};
}

function bodyError(e: unknown): HttpResult {
  if (e instanceof BodyTooLargeError) return apiError(413, 'payload_too_large', e.message);
  return apiError(400, 'bad_request', `Could not read the request body: ${e instanceof Error ? e.message : String(e)}`);
}
