import {expect} from '@jest/globals';

/**
 * The error `p` rejects with, asserted to be a `type` (default Error); throws when `p` resolves instead.
 * Lets a test read the error's fields where `rejects.toThrow` would only match its message.
 */
export async function failure<E extends Error = Error>(
  p: Promise<unknown>,
  type: abstract new (...args: never[]) => E = Error as unknown as abstract new (...args: never[]) => E
): Promise<E> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(type);
    return e as E;
  }
  throw new Error(`expected a ${type.name}, but the promise resolved`);
}
