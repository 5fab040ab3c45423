import {createHmac} from 'node:crypto';
import {describe, expect, test} from '@jest/globals';
import {RuntimeTokens, TokenError} from '../../src/artifacts/runtime-token.js';
import {ManualClock} from '../../src/clock.js';

const IDS = {workflowRunBackendId: 'run-1', workflowJobRunBackendId: 'job-1'};

describe('RuntimeTokens', () => {
  test('a minted token is a JWT whose scp claim carries the Actions.Results scope, and verifies to its ids', () => {
    const tokens = new RuntimeTokens({clock: new ManualClock()});
    const token = tokens.mint(IDS);

    const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as {scp: string};
    expect(claims.scp.split(' ')).toContain('Actions.Results:run-1:job-1');
    expect(tokens.verify(`Bearer ${token}`)).toEqual(IDS);
  });

  test.each([
    ['no header', undefined, 'missing bearer token'],
    ['another scheme', 'Basic dXNlcjpwYXNz', 'missing bearer token'],
    ['not a JWT', 'Bearer abc', 'not a JWT']
  ])('%s is refused', (_what, header, message) => {
    const tokens = new RuntimeTokens({clock: new ManualClock()});
    expect(() => tokens.verify(header)).toThrow(TokenError);
    expect(() => tokens.verify(header)).toThrow(message);
  });

  test("another service's token (another key) is refused", () => {
    const clock = new ManualClock();
    const token = new RuntimeTokens({clock}).mint(IDS);
    expect(() => new RuntimeTokens({clock}).verify(`Bearer ${token}`)).toThrow('the token signature is not valid');
  });

  test('a token is refused once expired', () => {
    const clock = new ManualClock();
    const tokens = new RuntimeTokens({clock});
    const token = tokens.mint(IDS, 60_000);
    clock.advance(59_000);
    expect(tokens.verify(`Bearer ${token}`)).toEqual(IDS);
    clock.advance(1_000);
    expect(() => tokens.verify(`Bearer ${token}`)).toThrow('the token has expired');
  });

  test('a validly signed token without the Actions.Results scope is refused', () => {
    const secret = Buffer.alloc(32, 1);
    const clock = new ManualClock();
    const header = Buffer.from(JSON.stringify({typ: 'JWT', alg: 'HS256'})).toString('base64url');
    const payload = Buffer.from(
      JSON.stringify({scp: 'Actions.GenericRead:run-1', exp: Math.floor(clock.now() / 1000) + 60})
    ).toString('base64url');
    const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');

    expect(() => new RuntimeTokens({clock, secret}).verify(`Bearer ${header}.${payload}.${signature}`)).toThrow(
      'the token has no Actions.Results scope'
    );
  });
});
