import satisfies from 'semver/functions/satisfies.js';

/**
 * A release version as buildx tags its releases, the "v" optional: 0.19.3, v0.19.3, v0.20.0-rc1. Group 1 is
 * the version without the "v". The one pattern for `buildx-version` and the latest release's tag.
 */
export const RELEASE_VERSION = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)$/;

/** A dev build of buildx reports a 7-hex git commit instead of a version (see Buildx.parseVersion). */
const DEV_BUILD = /^[0-9a-f]{7}$/;

/**
 * docker's Buildx.versionSatisfies: semver's `satisfies` (so a prerelease such as "v0.13.0-rc1" satisfies no
 * plain range), and a dev build (7-hex commit) satisfies every range.
 */
export function versionSatisfies(version: string, range: string): boolean {
  const v = version.trim();
  return DEV_BUILD.test(v) || satisfies(v, range);
}

/** True when `version` (e.g. "0.13.1", "v0.13.1") satisfies `>=min`, as docker's gates do. */
export function versionAtLeast(version: string, min: string): boolean {
  return versionSatisfies(version, `>=${min}`);
}
