import {InputError} from '../errors.js';

/**
 * Inputs that become positional arguments of docker's argv (build-push's `context`, bake's targets): a value
 * starting with '-' would be read as a flag (`--file=/etc/passwd`, `--allow=fs=*`). Throws InputError naming
 * the input and the way to write such a path; returns the values otherwise.
 */
export function checkPositional<T extends string | string[]>(input: string, values: T): T {
  for (const value of typeof values === 'string' ? [values] : values) {
    if (value.startsWith('-')) {
      throw new InputError(
        input,
        `"${value}" starts with "-", so docker would read it as an option and not as a name or path (a path: write ./${value})`
      );
    }
  }
  return values;
}
