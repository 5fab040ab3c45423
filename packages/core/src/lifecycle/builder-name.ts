import {randomBytes} from 'node:crypto';

/** buildx builder names: letters, digits, '-', '_' and '.' (the CLI also uses it as a file name). */
export const BUILDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/** A fresh buildx builder name, `remote-builder-<8 hex digits>`: the one rule for every step and the CLI. */
export function newBuilderName(): string {
  return `remote-builder-${randomBytes(4).toString('hex')}`;
}
