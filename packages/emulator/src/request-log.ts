import type {CiRouteName} from './ci-route-names.js';

/** Names of the API routes, as used in request records and fault rules; 'unknown' for anything else. */
export type ApiRouteName = 'assign' | 'details' | 'teardown' | 'profiles' | 'cache-reset' | CiRouteName | 'unknown';

/** RequestRecord is one API request the emulator received (admin routes are not recorded). */
export interface RequestRecord {
  /** Arrival time, epoch milliseconds. */
  at: number;
  method: string;
  /** The path without the query string. */
  path: string;
  /** The status sent; 0 when the socket was reset or the request hung without an answer. */
  status: number;
  route: ApiRouteName;
  builderId?: string;
  profile?: string;
  /** Id of the fault rule that applied, if any (an emulator addition). */
  faultId?: string;
}

/** RequestLog keeps the API requests in arrival order. */
export class RequestLog {
  readonly #records: RequestRecord[] = [];

  /** Appends a record and returns it for later updates (status, fault). */
  add(record: RequestRecord): RequestRecord {
    this.#records.push(record);
    return record;
  }

  /** Copies of every record. */
  all(): RequestRecord[] {
    return this.#records.map(r => ({...r}));
  }

  clear(): void {
    this.#records.length = 0;
  }
}
