import {describe, expect, test} from '@jest/globals';
import {
  createNodeArgs,
  csvJoin,
  inspectArgs,
  inspectBootstrapArgs,
  rmArgs,
  versionArgs,
  type CreateNodeArgsOpts
} from '../../src/buildx/buildx-args.js';

const certs = {cacert: '/tmp/c/b1/ca.pem', cert: '/tmp/c/b1/cert.pem', key: '/tmp/c/b1/key.pem'};
const driverOpt = 'cacert=/tmp/c/b1/ca.pem,cert=/tmp/c/b1/cert.pem,key=/tmp/c/b1/key.pem';
const base: CreateNodeArgsOpts = {name: 'rb', node: 'b1', endpoint: 'tcp://10.0.0.1:1234', certs};

describe('createNodeArgs', () => {
  // prettier-ignore
  test.each<[number, Partial<CreateNodeArgsOpts>, string[]]>([
    [1, {}, ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'remote', '--driver-opt', driverOpt, 'tcp://10.0.0.1:1234']],
    [2, {platforms: ['linux/amd64']}, ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'remote', '--driver-opt', driverOpt, '--platform', 'linux/amd64', 'tcp://10.0.0.1:1234']],
    [3, {platforms: ['linux/amd64', 'linux/arm64']}, ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'remote', '--driver-opt', driverOpt, '--platform', 'linux/amd64,linux/arm64', 'tcp://10.0.0.1:1234']],
    [4, {platforms: []}, ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'remote', '--driver-opt', driverOpt, 'tcp://10.0.0.1:1234']],
    [5, {use: true}, ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'remote', '--driver-opt', driverOpt, '--use', 'tcp://10.0.0.1:1234']],
    [6, {use: false}, ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'remote', '--driver-opt', driverOpt, 'tcp://10.0.0.1:1234']],
    [7, {use: true, platforms: ['linux/arm64']}, ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'remote', '--driver-opt', driverOpt, '--platform', 'linux/arm64', '--use', 'tcp://10.0.0.1:1234']],
    [8, {append: true, node: 'b2', endpoint: 'tcp://10.0.0.2:1234'}, ['buildx', 'create', '--name', 'rb', '--append', '--node', 'b2', '--driver', 'remote', '--driver-opt', driverOpt, 'tcp://10.0.0.2:1234']],
    [9, {append: true, use: true, node: 'b2'}, ['buildx', 'create', '--name', 'rb', '--append', '--node', 'b2', '--driver', 'remote', '--driver-opt', driverOpt, 'tcp://10.0.0.1:1234']],
    [10, {append: true, use: true, platforms: ['linux/arm64']}, ['buildx', 'create', '--name', 'rb', '--append', '--node', 'b1', '--driver', 'remote', '--driver-opt', driverOpt, '--platform', 'linux/arm64', 'tcp://10.0.0.1:1234']],
    [11, {certs: {cacert: '/tmp/a,b/ca.pem', cert: '/tmp/a,b/cert.pem', key: '/tmp/a,b/key.pem'}}, ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'remote', '--driver-opt', '"cacert=/tmp/a,b/ca.pem","cert=/tmp/a,b/cert.pem","key=/tmp/a,b/key.pem"', 'tcp://10.0.0.1:1234']],
    [12, {certs: {cacert: '/tmp/a"b/ca.pem', cert: '/tmp/ab/cert.pem', key: '/tmp/ab/key.pem'}}, ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'remote', '--driver-opt', '"cacert=/tmp/a""b/ca.pem",cert=/tmp/ab/cert.pem,key=/tmp/ab/key.pem', 'tcp://10.0.0.1:1234']],
    [13, {certs: {cacert: '/tmp/my dir/ca.pem', cert: '/tmp/my dir/cert.pem', key: '/tmp/my dir/key.pem'}}, ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'remote', '--driver-opt', 'cacert=/tmp/my dir/ca.pem,cert=/tmp/my dir/cert.pem,key=/tmp/my dir/key.pem', 'tcp://10.0.0.1:1234']],
    [14, {endpoint: 'tcp://[::1]:99'}, ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'remote', '--driver-opt', driverOpt, 'tcp://[::1]:99']]
  ])('[%d] given %o returns %o', (_n, over, expected) => {
    expect(createNodeArgs({...base, ...over})).toEqual(expected);
  });

  test('the endpoint is always the last argument and --use never appears with --append', () => {
    const args = createNodeArgs({...base, append: true, use: true, platforms: ['linux/amd64']});
    expect(args[args.length - 1]).toBe('tcp://10.0.0.1:1234');
    expect(args).not.toContain('--use');
  });
});

describe('other argv builders', () => {
  // prettier-ignore
  test.each<[number, string[], string[]]>([
    [1, inspectBootstrapArgs('rb'), ['buildx', 'inspect', '--bootstrap', '--builder', 'rb']],
    [2, inspectArgs('rb'), ['buildx', 'inspect', '--builder', 'rb']],
    [3, rmArgs('rb'), ['buildx', 'rm', 'rb']],
    [4, versionArgs(), ['buildx', 'version']],
    [5, inspectBootstrapArgs('remote-builder-0a1b2c3d'), ['buildx', 'inspect', '--bootstrap', '--builder', 'remote-builder-0a1b2c3d']],
    [6, rmArgs('remote-builder-0a1b2c3d'), ['buildx', 'rm', 'remote-builder-0a1b2c3d']]
  ])('[%d] returns %o', (_n, got, expected) => {
    expect(got).toEqual(expected);
  });
});

describe('csvJoin', () => {
  // prettier-ignore
  test.each<[number, string[], string]>([
    [1, [], ''],
    [2, ['a'], 'a'],
    [3, ['a', 'b', 'c'], 'a,b,c'],
    [4, ['a,b'], '"a,b"'],
    [5, ['a"b'], '"a""b"'],
    [6, ['"'], '""""'],
    [7, ['a\nb', 'c'], '"a\nb",c'],
    [8, ['a\rb'], '"a\rb"'],
    [9, ['x=1', 'y="2,3"'], 'x=1,"y=""2,3"""'],
    [10, ['with space', 'semi;colon', "single'quote"], "with space,semi;colon,single'quote"],
    [11, ['', 'b'], ',b']
  ])('[%d] joins %o as %o', (_n, fields, expected) => {
    expect(csvJoin(fields)).toBe(expected);
  });
});
