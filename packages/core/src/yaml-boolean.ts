/**
 * A YAML 1.2 core-schema boolean, as @actions/core's getBooleanInput reads one: true, false, or undefined for
 * anything else. No imports: actions' early.ts reads an input with it before the rest of the bundle loads.
 */
export function yamlBoolean(value: string): boolean | undefined {
  if (value === 'true' || value === 'True' || value === 'TRUE') return true;
  if (value === 'false' || value === 'False' || value === 'FALSE') return false;
  return undefined;
}
