import {ApiProblem} from './api-problem.js';

type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * BodyFields reads fields of a JSON request body, throwing an ApiProblem (400 invalid_field) that names the
 * field by its dotted path when one is missing or has the wrong type. Absent optional fields read as undefined.
 */
export class BodyFields {
  private constructor(
    readonly raw: JsonObject,
    private readonly prefix: string
  ) {}

  /** The top-level body; 400 bad_request unless it is a JSON object. */
  static of(body: unknown): BodyFields {
    if (!isObject(body)) throw new ApiProblem(400, 'bad_request', 'Body must be a JSON object');
    return new BodyFields(body, '');
  }

  path(key: string): string {
    return this.prefix + key;
  }

  has(key: string): boolean {
    return this.raw[key] !== undefined;
  }

  object(key: string, required = false): BodyFields | undefined {
    const v = this.raw[key];
    if (v === undefined) {
      if (required) throw ApiProblem.invalid(this.path(key), 'is required');
      return undefined;
    }
    if (!isObject(v)) throw ApiProblem.invalid(this.path(key), 'must be an object');
    return new BodyFields(v, `${this.path(key)}.`);
  }

  string(key: string, opts: {required?: boolean; nonEmpty?: boolean} = {}): string | undefined {
    const v = this.raw[key];
    if (v === undefined) {
      if (opts.required) throw ApiProblem.invalid(this.path(key), 'is required');
      return undefined;
    }
    if (typeof v !== 'string') throw ApiProblem.invalid(this.path(key), 'must be a string');
    if (opts.nonEmpty && v.trim() === '') throw ApiProblem.invalid(this.path(key), 'must not be empty');
    return v;
  }

  boolean(key: string): boolean | undefined {
    const v = this.raw[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') throw ApiProblem.invalid(this.path(key), 'must be a boolean');
    return v;
  }

  /** A whole number >= 0. */
  integer(key: string): number | undefined {
    const v = this.raw[key];
    if (v === undefined) return undefined;
    if (!Number.isSafeInteger(v) || (v as number) < 0) {
      throw ApiProblem.invalid(this.path(key), 'must be a whole number >= 0');
    }
    return v as number;
  }

  /** A finite number >= 0. */
  number(key: string): number | undefined {
    const v = this.raw[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw ApiProblem.invalid(this.path(key), 'must be a number >= 0');
    }
    return v;
  }

  /** A list of non-empty strings; `nonEmptyList` refuses []. */
  strings(key: string, opts: {required?: boolean; nonEmptyList?: boolean} = {}): string[] | undefined {
    const v = this.raw[key];
    if (v === undefined) {
      if (opts.required) throw ApiProblem.invalid(this.path(key), 'is required');
      return undefined;
    }
    if (!Array.isArray(v) || !v.every(s => typeof s === 'string' && s.trim() !== '')) {
      throw ApiProblem.invalid(this.path(key), 'must be a list of non-empty strings');
    }
    if (opts.nonEmptyList && v.length === 0) throw ApiProblem.invalid(this.path(key), 'must not be empty');
    return [...(v as string[])];
  }

  /** Refuses a field that may not be sent. */
  forbid(key: string, why: string): void {
    if (this.has(key)) throw ApiProblem.invalid(this.path(key), why);
  }
}
