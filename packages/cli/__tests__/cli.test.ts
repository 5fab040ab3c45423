// Help, usage errors, version and credentials: nothing here reaches the service.
import {describe, expect, test} from '@jest/globals';
import {PROJECT_VERSION} from '@remote-builder-actions/core';
import {COMMAND_GROUPS} from '../src/cli.js';
import {cli} from './helpers.js';

const ENV = {REMOTE_BUILDER_API_URL: 'http://127.0.0.1:9', REMOTE_BUILDER_API_KEY: 'test-key-123'};
const commands = COMMAND_GROUPS.flatMap(g => g.commands.map(c => [g.name, c.name] as const));

describe('help', () => {
  test.each([[['--help']], [['-h']], [['help']]])('%#. %j prints the top help on stdout', async argv => {
    const r = await cli(argv, ENV);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: remote-builder <command> \[options\]/);
    for (const [g, c] of commands) expect(r.stdout).toContain(`${g} ${c}`);
    expect(r.stdout).toContain('130  interrupted by SIGINT');
    expect(r.stderr).toBe('');
  });

  test('no arguments: the top help on stderr, exit 2', async () => {
    const r = await cli([], ENV);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Usage: remote-builder/);
  });

  test.each(COMMAND_GROUPS.map(g => [g.name]))('%s --help lists its commands; without a command exit 2', async g => {
    const r = await cli([g, '--help'], ENV);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: remote-builder ${g} <command>`));
    const bare = await cli([g], ENV);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain(`Usage: remote-builder ${g} <command>`);
  });

  test.each(commands)('%s %s --help', async (g, c) => {
    for (const argv of [
      [g, c, '--help'],
      [g, c, '-h', '--bogus'],
      ['help', g, c]
    ]) {
      const r = await cli(argv, ENV);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: remote-builder ${g} ${c}\\b`));
      expect(r.stdout).toContain('Global options:');
      expect(r.stderr).toBe('');
    }
  });

  test('--version', async () => {
    const r = await cli(['--version'], ENV);
    expect(r).toEqual({code: 0, stdout: `remote-builder ${PROJECT_VERSION}\n`, stderr: ''});
  });
});

describe('usage errors exit 2 and point at the help', () => {
  test.each<[number, string[], RegExp, string]>([
    [1, ['nope'], /unknown command "nope"/, 'remote-builder --help'],
    [2, ['runners', 'nope'], /unknown command "runners nope"/, 'remote-builder runners --help'],
    [
      3,
      ['runners', 'list', '--bogus'],
      /unknown option "--bogus" for "runners list"/,
      'remote-builder runners list --help'
    ],
    [4, ['runners', 'get'], /missing RUNNER_ID/, 'remote-builder runners get --help'],
    [5, ['runners', 'get', 'a', 'b'], /unexpected argument "b"/, 'remote-builder runners get --help'],
    [6, ['runners', 'create', '--name', 'x'], /missing --provider-id/, 'remote-builder runners create --help'],
    [7, ['runners', 'update', 'r'], /nothing to update/, 'remote-builder runners update --help'],
    [
      8,
      ['runners', 'update', 'r', '--role-arn', 'a'],
      /--role-arn cannot be changed/,
      'remote-builder runners update --help'
    ],
    [9, ['runners', 'update', 'r', '--public', '--no-public'], /not both/, 'remote-builder runners update --help'],
    [
      10,
      ['runners', 'update', 'r', '--pool-size', '-1'],
      /--pool-size must be a whole number >= 0, got "-1"/,
      'remote-builder runners update --help'
    ],
    [11, ['runners', 'update', 'r', '--storage-size', 'big'], /--storage-size must be a number/, 'runners update'],
    [12, ['images', 'update', 'i'], /nothing to update/, 'remote-builder images update --help'],
    [13, ['images', 'list', '--page', '0'], /--page must be a whole number >= 1/, 'images list'],
    [14, ['images', 'create', '--alias', 'a'], /missing --stack-id/, 'images create'],
    [15, ['profiles', 'reset-cache'], /missing NAME\|ID/, 'profiles reset-cache'],
    [16, ['builder', 'up'], /missing --profile/, 'builder up'],
    [17, ['builder', 'up', '--profile', 'p', '--name', 'bad name'], /is not a builder name/, 'builder up'],
    [18, ['builder', 'run', '--profile', 'p'], /missing the command to run after "--"/, 'builder run'],
    [19, ['builder', 'run', '--profile', 'p', 'make'], /put the command after "--"/, 'builder run'],
    [20, ['builder', 'down', '--name', 'a', '--state-file', 'f'], /not both/, 'builder down'],
    [21, ['stacks', 'list', 'extra'], /unexpected argument "extra"/, 'stacks list']
  ])('%d: %j', async (_n, argv, message, helpAt) => {
    const r = await cli(argv, ENV);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain(helpAt);
  });

  test.each<[number, string[], RegExp]>([
    [
      1,
      ['builder', 'up', '--profile', 'p', '--timeout', 'soon'],
      /--timeout must be a whole number of milliseconds from 1 to 21600000, got "soon"/
    ],
    [2, ['builder', 'up', '--profile', ',', '--timeout', '5'], /--profile: is required/]
  ])('%d: bad input values exit 2 naming the flag: %j', async (_n, argv, message) => {
    const r = await cli(argv, ENV);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('an option before the command name that is not a global one', () => {
  test.each<[number, string[], string, string]>([
    [
      1,
      ['--profle', 'default', 'builder', 'run', '--', 'true'],
      'unknown option "--profle"; did you mean --profile (an option of "builder up", "builder run")?',
      'remote-builder --help'
    ],
    [
      2,
      ['--api-ulr', 'http://x', 'builder', 'up'],
      'unknown option "--api-ulr"; did you mean --api-url?',
      'remote-builder --help'
    ],
    [3, ['--verison'], 'unknown option "--verison"; did you mean --version?', 'remote-builder --help'],
    [4, ['-x'], 'unknown option "-x"', 'remote-builder --help'],
    [
      5,
      ['--profile', 'ci', 'builder', 'up'],
      '--profile is an option of "builder up", "builder run": put it after the command\'s name',
      'remote-builder --help'
    ],
    [
      6,
      ['builder', '--timout', '5', 'up'],
      'unknown option "--timout"; did you mean --timeout (an option of "builder up", "builder run")?',
      'remote-builder builder --help'
    ]
  ])('%d: %j names it, with the closest option, instead of an unknown command', async (_n, argv, message, helpAt) => {
    const r = await cli(argv, ENV);
    expect(r).toEqual({code: 2, stdout: '', stderr: `remote-builder: error: ${message}\nRun "${helpAt}" for usage.\n`});
  });
});

describe('credentials', () => {
  test.each<[number, NodeJS.ProcessEnv, string[], RegExp]>([
    [1, {REMOTE_BUILDER_API_KEY: 'test-key-123'}, [], /--api-url: is required: set REMOTE_BUILDER_API_URL/],
    [2, {REMOTE_BUILDER_API_URL: 'http://127.0.0.1:9'}, [], /--api-key: is required: set REMOTE_BUILDER_API_KEY/],
    [
      3,
      {REMOTE_BUILDER_API_KEY: 'test-key-123', REMOTE_BUILDER_API_URL: 'http://example.com'},
      [],
      /unencrypted: use https/
    ],
    [
      4,
      {REMOTE_BUILDER_API_URL: 'http://127.0.0.1:9'},
      ['--api-key', 'has space'],
      /--api-key: contains a space \(U\+0020\)/
    ],
    [5, {}, ['--api-url', 'ftp://x', '--api-key', 'test-key-123'], /must start with https/]
  ])('%d: missing or bad credentials exit 2 before any request', async (_n, env, flags, message) => {
    const r = await cli(['stacks', 'list', ...flags], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  test('an unreachable service exits 1 with the call and the fix', async () => {
    const r = await cli(['stacks', 'list'], {...ENV, REMOTE_BUILDER_API_URL: 'http://127.0.0.1:1'});
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^remote-builder: error: Failed to list stacks: ECONNREFUSED \(cannot reach http:\/\/127\.0\.0\.1:1/m
    );
  });
});
