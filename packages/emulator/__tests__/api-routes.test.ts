import {expect, test} from '@jest/globals';
import {matchRoute} from '../src/api-routes.js';

test.each<[number, string, string, unknown]>([
  [1, 'POST', '/api/v1/builders/assign', {kind: 'route', route: 'assign'}],
  [2, 'GET', '/api/v1/builders/bld_1/details', {kind: 'route', route: 'details', id: 'bld_1'}],
  [3, 'DELETE', '/api/v1/builders/bld_1/teardown', {kind: 'route', route: 'teardown', id: 'bld_1'}],
  [4, 'GET', '/api/v1/builder-profiles', {kind: 'route', route: 'profiles'}],
  [5, 'POST', '/api/v1/builder-profiles/bp_1/cache/reset', {kind: 'route', route: 'cache-reset', id: 'bp_1'}],
  [6, 'GET', '/api/v1/builders/assign', {kind: 'method-not-allowed', allow: 'POST'}],
  [7, 'POST', '/api/v1/builders/bld_1/details', {kind: 'method-not-allowed', allow: 'GET'}],
  [8, 'GET', '/api/v1/builders/bld_1', {kind: 'not-found'}],
  [9, 'GET', '/api/v1/builders/assign/', {kind: 'not-found'}],
  [10, 'GET', '/api/v2/builder-profiles', {kind: 'not-found'}],
  [11, 'GET', '/api/v1/runners', {kind: 'route', route: 'list-runners'}],
  [12, 'POST', '/api/v1/runner-images', {kind: 'route', route: 'create-runner-image'}],
  [13, 'GET', '/api/v1/builders/%E0%A4%A/details', {kind: 'not-found'}],
  [14, 'GET', '/api/v1/builders/a%20b/details', {kind: 'route', route: 'details', id: 'a b'}]
])('%d: %s %s', (_n, method, path, expected) => {
  expect(matchRoute(method, path)).toEqual(expected);
});
