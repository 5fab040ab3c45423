import {type HttpResult, json} from './http.js';

/**
 * ApiProblem is a request the emulator refuses, thrown by the stores and turned into an error response.
 * The body follows the emulator's error shape (see apiError), plus `field` naming the offending field.
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string
  ) {
    super(message);
    this.name = 'ApiProblem';
  }

  /** 400 invalid_field: a field is missing, of the wrong type or not allowed (the emulator's choice of status). */
  static invalid(field: string, message: string): ApiProblem {
    return new ApiProblem(400, 'invalid_field', `"${field}" ${message}`, field);
  }

  toResult(): HttpResult {
    const error: Record<string, string> = {code: this.code, message: this.message};
    if (this.field !== undefined) error.field = this.field;
    return json(this.status, {error});
  }
}
