/** Name and version of this project, sent as the User-Agent of every API request. */
export const PROJECT_NAME = 'remote-builder-actions';
// The root package.json's version, written by `npm run version:set -- X.Y.Z` (scripts/version-set.mjs).
export const PROJECT_VERSION = '1.0.0';
export const USER_AGENT = `${PROJECT_NAME}/${PROJECT_VERSION} (+node ${process.versions.node})`;
