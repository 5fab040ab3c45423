/** Names of the runner, runner-image and stack routes (spec §4.1–§4.3), as used in request records and faults. */
export const CI_ROUTE_NAMES = [
  'list-stacks',
  'list-runner-images',
  'create-runner-image',
  'update-runner-image',
  'list-runners',
  'get-runner',
  'create-runner',
  'update-runner',
  'delete-runner'
] as const;
export type CiRouteName = (typeof CI_ROUTE_NAMES)[number];

/** True for the name of a runner, runner-image or stack route. */
export function isCiRoute(route: string): route is CiRouteName {
  return (CI_ROUTE_NAMES as readonly string[]).includes(route);
}

/** Spec §5.3: a key needs both scopes for the runner, runner-image and stack endpoints. */
export const CI_SCOPES: readonly string[] = ['ci', 'cache'];
