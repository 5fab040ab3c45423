import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx, BuildxError} from '../../src/buildx/buildx.js';
import {findBuildxPlugin, systemPluginDirs} from '../../src/buildx/buildx-plugin.js';
import {FakeExec} from '../fakes/fake-exec.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'buildx-plugin-'));
});
afterEach(() => rmSync(dir, {recursive: true, force: true}));

/** Writes an executable file; `script` makes it start with `#!`, else with an ELF header (a binary). */
function executable(path: string, script = false): string {
  mkdirSync(join(path, '..'), {recursive: true});
  writeFileSync(path, script ? '#!/bin/sh\nexit 0\n' : '\x7fELF fake docker');
  chmodSync(path, 0o755);
  return path;
}

describe('findBuildxPlugin', () => {
  // Folders, relative to the test's dir: `bin` holds docker, `config` is DOCKER_CONFIG, `extra` is named by
  // config.json's cliPluginsExtraDirs, `system` stands for docker's system folders.
  type Layout = {plugins: string[]; extraDirs?: boolean; docker?: 'binary' | 'script' | 'none'; dirPlugin?: string};
  // prettier-ignore
  test.each<[string, Layout, string | undefined]>([
    ['the user’s cli-plugins', {plugins: ['config/cli-plugins']}, 'config/cli-plugins'],
    ['a system folder when the user has none', {plugins: ['system']}, 'system'],
    ['the user’s before the system’s', {plugins: ['system', 'config/cli-plugins']}, 'config/cli-plugins'],
    ['config.json’s cliPluginsExtraDirs first, as docker searches them', {plugins: ['config/cli-plugins', 'extra'], extraDirs: true}, 'extra'],
    ['no plugin anywhere', {plugins: []}, undefined],
    ['docker is a script (a wrapper, a fake): it may run buildx from anywhere', {plugins: ['config/cli-plugins'], docker: 'script'}, undefined],
    ['no docker on PATH', {plugins: ['config/cli-plugins'], docker: 'none'}, undefined],
    ['the first match is a folder: docker would fail, so docker says why', {plugins: ['system'], dirPlugin: 'config/cli-plugins'}, undefined]
  ])('%s', (_what, layout, expected) => {
    if (layout.docker !== 'none') executable(join(dir, 'bin', 'docker'), layout.docker === 'script');
    for (const d of layout.plugins) executable(join(dir, d, 'docker-buildx'), true);
    if (layout.dirPlugin) mkdirSync(join(dir, layout.dirPlugin, 'docker-buildx'), {recursive: true});
    mkdirSync(join(dir, 'config'), {recursive: true});
    if (layout.extraDirs) writeFileSync(join(dir, 'config', 'config.json'), JSON.stringify({cliPluginsExtraDirs: [join(dir, 'extra')]}));
    const found = findBuildxPlugin({
      docker: 'docker',
      env: {PATH: `${join(dir, 'nothing')}:${join(dir, 'bin')}`, DOCKER_CONFIG: join(dir, 'config')},
      platform: 'linux',
      systemDirs: [join(dir, 'system')]
    });
    expect(found).toBe(expected === undefined ? undefined : join(dir, expected, 'docker-buildx'));
  });

  test('a docker given by path is the one checked', () => {
    executable(join(dir, 'config', 'cli-plugins', 'docker-buildx'), true);
    const opts = {env: {PATH: '', DOCKER_CONFIG: join(dir, 'config')}, platform: 'linux' as const, systemDirs: []};
    expect(findBuildxPlugin({...opts, docker: executable(join(dir, 'opt', 'docker'))})).toBe(
      join(dir, 'config', 'cli-plugins', 'docker-buildx')
    );
    expect(findBuildxPlugin({...opts, docker: executable(join(dir, 'opt', 'docker-wrapper'), true)})).toBeUndefined();
  });

  test('Windows: docker.exe on PATH and docker-buildx.exe', () => {
    executable(join(dir, 'bin', 'docker.exe'));
    executable(join(dir, 'config', 'cli-plugins', 'docker-buildx.exe'));
    const found = findBuildxPlugin({
      docker: 'docker',
      env: {PATH: join(dir, 'bin'), DOCKER_CONFIG: join(dir, 'config')},
      platform: 'win32',
      systemDirs: []
    });
    expect(found).toBe(join(dir, 'config', 'cli-plugins', 'docker-buildx.exe'));
  });

  test('the system folders are docker’s, in its order', () => {
    expect(systemPluginDirs('linux', {})).toEqual([
      '/usr/local/lib/docker/cli-plugins',
      '/usr/local/libexec/docker/cli-plugins',
      '/usr/lib/docker/cli-plugins',
      '/usr/libexec/docker/cli-plugins'
    ]);
    expect(systemPluginDirs('win32', {ProgramData: 'C:\\ProgramData', ProgramFiles: 'C:\\Program Files'})).toEqual([
      join('C:\\ProgramData', 'Docker', 'cli-plugins'),
      join('C:\\Program Files', 'Docker', 'cli-plugins')
    ]);
  });
});

describe('Buildx.version asks the plugin directly', () => {
  const plugin = '/plugins/docker-buildx';
  const line = 'github.com/docker/buildx v0.29.1 abc1234\n';

  test('one process: the plugin alone, in the step’s env, told it runs standalone', async () => {
    const exec = new FakeExec(() => ({stdout: line}));
    const buildx = new Buildx({exec, env: {DOCKER_CONFIG: '/cfg'}});
    await expect(buildx.version({plugin})).resolves.toBe('0.29.1');
    expect(exec.calls).toEqual([
      {
        command: plugin,
        args: ['version'],
        opts: {
          silent: true,
          timeoutMs: 15000,
          signal: undefined,
          env: {DOCKER_CONFIG: '/cfg', DOCKER_CLI_PLUGIN_ORIGINAL_CLI_COMMAND: ''}
        }
      }
    ]);
  });

  // prettier-ignore
  test.each<[string, {exitCode?: number; stdout?: string; stderr?: string}]>([
    ['fails', {exitCode: 1, stderr: 'exec format error'}],
    ['answers without a version', {stdout: 'something odd\n'}]
  ])('the plugin %s: docker is asked, and its answer counts', async (_what, pluginResult) => {
    const exec = new FakeExec(c => (c.command === plugin ? pluginResult : {stdout: 'github.com/docker/buildx v0.13.1 x\n'}));
    await expect(new Buildx({exec}).version({plugin})).resolves.toBe('0.13.1');
    expect(exec.calls.map(c => [c.command, ...c.args])).toEqual([[plugin, 'version'], ['docker', 'buildx', 'version']]);
  });

  test('stopped by the caller’s signal: the cancellation, and docker is not asked', async () => {
    const exec = new FakeExec(() => ({exitCode: 143, killed: 'aborted'}));
    const e = await new Buildx({exec}).version({plugin}).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(BuildxError);
    expect((e as Error).message).toMatch(/was stopped: the step was cancelled/);
    expect(exec.calls).toHaveLength(1);
  });

  test('findPlugin: the plugin docker would run is found and asked', async () => {
    executable(join(dir, 'bin', 'docker'));
    const found = executable(join(dir, 'config', 'cli-plugins', 'docker-buildx'), true);
    const exec = new FakeExec(() => ({stdout: line}));
    const env = {PATH: join(dir, 'bin'), DOCKER_CONFIG: join(dir, 'config')};
    await expect(new Buildx({exec, env, findPlugin: true}).version()).resolves.toBe('0.29.1');
    expect(exec.calls.map(c => c.command)).toEqual([found]);
  });
});

describe('Buildx runs buildx’s own commands as the plugin docker would run', () => {
  const line = 'github.com/docker/buildx v0.29.1 abc1234\n';
  /** docker (a binary) on PATH and its plugin in DOCKER_CONFIG; the Buildx looks it up as in production. */
  function layout(docker: 'binary' | 'script' = 'binary'): {plugin: string; env: Record<string, string>} {
    executable(join(dir, 'bin', 'docker'), docker === 'script');
    const plugin = executable(join(dir, 'config', 'cli-plugins', 'docker-buildx'), true);
    return {plugin, env: {PATH: join(dir, 'bin'), DOCKER_CONFIG: join(dir, 'config')}};
  }
  const certs = {cacert: '/c/ca.pem', cert: '/c/cert.pem', key: '/c/key.pem'};
  const node = {name: 'rb', node: 'node-1', endpoint: 'tcp://10.0.0.1:1234', certs};

  test('create, inspect and rm: one process each, buildx’s argv without `buildx`, told it runs standalone', async () => {
    const {plugin, env} = layout();
    const exec = new FakeExec(c => (c.args[0] === 'inspect' ? {stdout: 'Name: rb\n'} : {}));
    const buildx = new Buildx({exec, env, findPlugin: true});
    await buildx.createNode(node);
    await expect(buildx.exists('rb')).resolves.toBe(true);
    await expect(buildx.rm('rb', {timeoutMs: 5000})).resolves.toBe('removed');
    expect(exec.calls.map(c => [c.command, ...c.args.slice(0, 3)])).toEqual([
      [plugin, 'create', '--name', 'rb'],
      [plugin, 'inspect', '--builder', 'rb'],
      [plugin, 'rm', 'rb']
    ]);
    for (const c of exec.calls) expect(c.opts.env).toEqual({...env, DOCKER_CLI_PLUGIN_ORIGINAL_CLI_COMMAND: ''});
    expect(exec.calls[2]?.opts.timeoutMs).toBe(5000);
  });

  test('its failure is buildx’s, as through docker, and docker is not asked again', async () => {
    const {plugin, env} = layout();
    const exec = new FakeExec(() => ({exitCode: 1, stderr: 'ERROR: existing instance for "rb" but no append mode\n'}));
    await expect(new Buildx({exec, env, findPlugin: true}).createNode(node)).rejects.toThrow(
      'Failed to create buildx builder "rb" (node node-1): ERROR: existing instance for "rb" but no append mode'
    );
    expect(exec.calls.map(c => c.command)).toEqual([plugin]);
  });

  test('a plugin that cannot start: docker runs the command, and every later one', async () => {
    const {plugin, env} = layout();
    const logger = new RecordingLogger();
    const exec = new FakeExec(c => (c.command === plugin ? {exitCode: 127, spawnError: 'EACCES'} : {}));
    const buildx = new Buildx({exec, env, logger, findPlugin: true});
    await buildx.createNode(node);
    await buildx.rm('rb');
    expect(exec.calls.map(c => [c.command, c.args[0], c.args[1]])).toEqual([
      [plugin, 'create', '--name'],
      ['docker', 'buildx', 'create'],
      ['docker', 'buildx', 'rm']
    ]);
    expect(exec.calls[1]?.opts.env).toEqual(env);
    expect(logger.messages('debug')).toContain(
      `Buildx: \`${plugin}\` could not start (EACCES); running \`docker buildx\``
    );
  });

  test('a plugin that does not answer `version`: docker is asked that and everything after', async () => {
    const {plugin, env} = layout();
    const exec = new FakeExec(c =>
      c.command === plugin ? {exitCode: 1, stderr: 'exec format error'} : {stdout: line}
    );
    const buildx = new Buildx({exec, env, findPlugin: true});
    await expect(buildx.version()).resolves.toBe('0.29.1');
    await buildx.createNode(node);
    expect(exec.calls.map(c => [c.command, ...c.args.slice(0, 2)])).toEqual([
      [plugin, 'version'],
      ['docker', 'buildx', 'version'],
      ['docker', 'buildx', 'create']
    ]);
  });

  test('docker is a script, or the lookup is off: docker runs every command', async () => {
    const script = layout('script');
    const exec = new FakeExec();
    await new Buildx({exec, env: script.env, findPlugin: true}).createNode(node);
    await new Buildx({exec, env: script.env}).rm('rb');
    expect(exec.calls.map(c => [c.command, c.args[1]])).toEqual([
      ['docker', 'create'],
      ['docker', 'rm']
    ]);
  });
});
