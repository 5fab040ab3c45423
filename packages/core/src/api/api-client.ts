import {BuildersClient} from './builders-client.js';
import {CiClient} from './ci-client.js';
import {RequestEngine, type RequestEngineOpts} from './request-engine.js';

export type ApiClientOpts = RequestEngineOpts;

/**
 * ApiClient is every call of the service in one object, for the CLI: `builders` (a BuildersClient) and `ci`
 * (a CiClient) over one RequestEngine (one connection pool, one retry policy). Actions use a BuildersClient alone.
 */
export class ApiClient {
  readonly builders: BuildersClient;
  readonly ci: CiClient;
  readonly #engine: RequestEngine;

  constructor(opts: ApiClientOpts) {
    this.#engine = new RequestEngine(opts);
    this.builders = new BuildersClient({engine: this.#engine});
    this.ci = new CiClient({engine: this.#engine});
  }

  /** Closes the transport the two clients share (also an injected one). */
  close(): void {
    this.#engine.close();
  }
}
