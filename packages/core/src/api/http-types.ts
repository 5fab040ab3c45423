// The transport's request and response, apart from the Node transport so that its parts (proxied-requests.ts)
// and the clients can name them without importing it.
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** HttpRequest is one request as the transport sends it; `timeoutMs` covers connect, request and the whole response. */
export interface HttpRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** HttpResponse is a complete response; header names are lower-case, repeated headers are joined with ", ". */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** HttpTransport is the seam between the API client and the network; tests replace it with a fake. */
export interface HttpTransport {
  /** Resolves with any HTTP status; rejects with a TransportError when no complete response arrived. */
  request(req: HttpRequest): Promise<HttpResponse>;
  /** Releases every socket so nothing keeps the process alive. */
  close(): void;
}
