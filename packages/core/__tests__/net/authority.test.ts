import {expect, test} from '@jest/globals';
import {authority} from '../../src/net/authority.js';

test.each([
  ['api.example.com', 443, 'api.example.com:443'],
  ['10.0.0.1', 8443, '10.0.0.1:8443'],
  ['::1', 443, '[::1]:443'],
  ['[fd00::2]', 1234, '[fd00::2]:1234']
])('%#. authority(%j, %j) is %j', (host, port, want) => {
  expect(authority(host, port)).toBe(want);
});
