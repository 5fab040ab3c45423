import type {HttpResult} from '../http.js';

/**
 * BlobProblem is a blob request the storage refuses, answered as Azure Storage does: the status, the
 * `x-ms-error-code` header and an XML `<Error><Code/><Message/></Error>` body, which @azure/storage-blob turns into
 * a RestError (retried for 5xx, not for 4xx).
 */
export class BlobProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string
  ) {
    super(message);
    this.name = 'BlobProblem';
  }

  toResult(): HttpResult {
    const body =
      '<?xml version="1.0" encoding="utf-8"?>' +
      `<Error><Code>${xmlEscape(this.code)}</Code><Message>${xmlEscape(this.message)}</Message></Error>`;
    return {status: this.status, body, headers: {'content-type': 'application/xml', 'x-ms-error-code': this.code}};
  }
}

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
