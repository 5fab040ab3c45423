import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {appendNodesToStore, type StoreNode} from '../../src/buildx/buildx-store.js';

// Records as buildx 0.13-0.36 write them for our argv (json.Marshal of store.NodeGroup; the two-node ones
// captured from a real buildx 0.29.1 `create` then `create --append`), written out by hand.
const AMD64 = '{"architecture":"amd64","os":"linux"}';
const ARMV7 = '{"architecture":"arm","os":"linux","variant":"v7"}';
const opts = (n: string): string => `{"cacert":"/c/${n}/ca.pem","cert":"/c/${n}/cert.pem","key":"/c/${n}/key.pem"}`;
const nodeJson = (n: string, port: number, platforms: string, extra = ''): string =>
  `{"Name":"${n}","Endpoint":"tcp://127.0.0.1:${port}","Platforms":${platforms},"DriverOpts":${opts(n)},"Flags":null,"Files":null${extra}}`;
const record = (nodes: string[], top = '"Name":"rb","Driver":"remote"', dynamic = 'false'): string =>
  `{${top},"Nodes":[${nodes.join(',')}],"Dynamic":${dynamic}}`;

const certs = (n: string) => ({cacert: `/c/${n}/ca.pem`, cert: `/c/${n}/cert.pem`, key: `/c/${n}/key.pem`});
const N1: StoreNode = {name: 'n1', endpoint: 'tcp://127.0.0.1:1001', platforms: ['linux/amd64'], certs: certs('n1')};
const N2: StoreNode = {
  name: 'n2',
  endpoint: 'tcp://127.0.0.1:1002',
  platforms: ['linux/amd64', 'linux/arm/v7'],
  certs: certs('n2')
};
const N3: StoreNode = {name: 'N3', endpoint: 'tcp://127.0.0.1:1003', platforms: [], certs: certs('N3')};

const ONE = record([nodeJson('n1', 1001, `[${AMD64}]`)]);
// n2's linux/amd64 is dropped from n1 (NodeGroup.validateDuplicates).
const TWO = record([nodeJson('n1', 1001, '[]'), nodeJson('n2', 1002, `[${AMD64},${ARMV7}]`)]);
// n3 has no platforms: n1's and n2's stay; the node name is stored lower-cased, its paths as given.
const THREE = record([
  nodeJson('n1', 1001, '[]'),
  nodeJson('n2', 1002, `[${AMD64},${ARMV7}]`),
  nodeJson('n3', 1003, 'null').replace(/\/c\/n3\//g, '/c/N3/')
]);

let configDir: string;
beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'buildx-store-'));
  // As buildx's store.New leaves it.
  for (const sub of ['instances', 'activity']) mkdirSync(join(configDir, sub));
});
afterEach(() => rmSync(configDir, {recursive: true, force: true}));

const recordPath = (): string => join(configDir, 'instances', 'rb');
/** Every file under the config dir (a temp file left anywhere shows here). */
const files = (): string[] => readdirSync(configDir, {recursive: true}).map(String).sort();

describe('appendNodesToStore', () => {
  // prettier-ignore
  test.each<[number, string, string | undefined, StoreNode[], StoreNode, string]>([
    [1, 'one node, append one with arm/v7', ONE, [N1], N2, TWO],
    [2, 'two nodes, append one without platforms and an upper-case name', TWO, [N1, N2], N3, THREE],
    [3, 'a node created without platforms becomes [] once another is appended', record([nodeJson('n3', 1003, 'null').replace(/\/c\/n3\//g, '/c/N3/')]), [N3], N1,
      record([nodeJson('n3', 1003, '[]').replace(/\/c\/n3\//g, '/c/N3/'), nodeJson('n1', 1001, `[${AMD64}]`)])]
  ])('[%d] %s: writes the record buildx writes', (_n, _what, before, existing, node, after) => {
    writeFileSync(recordPath(), before ?? '', {mode: 0o600});
    expect(appendNodesToStore({configDir, builder: 'rb', existing, nodes: [node]})).toEqual({appended: true});
    expect(readFileSync(recordPath(), 'utf8')).toBe(after);
    const parsed = JSON.parse(readFileSync(recordPath(), 'utf8')) as {Nodes: {Name: string}[]};
    expect(parsed.Nodes.at(-1)?.Name).toBe(node.name.toLowerCase());
    expect(statSync(recordPath()).mode & 0o777).toBe(0o600);
    expect(files()).toEqual(['activity', 'activity/rb', 'instances', 'instances/rb']);
    // Its last activity, as buildx's Save sets it: RFC 3339, UTC, whole seconds.
    expect(readFileSync(join(configDir, 'activity', 'rb'), 'utf8')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(statSync(join(configDir, 'activity', 'rb')).mode & 0o777).toBe(0o600);
  });

  test('the builder name as created, its record under the lower-cased name; HTML characters escaped as Go does', () => {
    const c = {cacert: '/c/a&b<c>/ca.pem', cert: '/c/n1/cert.pem', key: '/c/n1/key.pem'};
    const goOpts = '{"cacert":"/c/a\\u0026b\\u003cc\\u003e/ca.pem","cert":"/c/n1/cert.pem","key":"/c/n1/key.pem"}';
    writeFileSync(
      join(configDir, 'instances', 'mybuilder'),
      record([nodeJson('n1', 1001, `[${AMD64}]`).replace(opts('n1'), goOpts)], '"Name":"MyBuilder","Driver":"remote"')
    );
    const res = appendNodesToStore({configDir, builder: 'MyBuilder', existing: [{...N1, certs: c}], nodes: [N2]});
    expect(res).toEqual({appended: true});
    expect(readFileSync(join(configDir, 'instances', 'mybuilder'), 'utf8')).toBe(
      record(
        [nodeJson('n1', 1001, '[]').replace(opts('n1'), goOpts), nodeJson('n2', 1002, `[${AMD64},${ARMV7}]`)],
        '"Name":"MyBuilder","Driver":"remote"'
      )
    );
  });

  const armNode = {...N1, platforms: ['linux/arm']};
  // prettier-ignore
  test.each<[number, string | undefined, StoreNode[], StoreNode, RegExp]>([
    [1, undefined, [N1], N2, /^cannot read .*instances\/rb: .*ENOENT/],
    [2, 'not json', [N1], N2, /is not the record our creates wrote: it is not JSON$/],
    [3, record([nodeJson('n1', 1001, `[${AMD64}]`)], '"Name":"rb","Driver":"remote","Extra":1'), [N1], N2, /: unknown key Extra$/],
    [4, record([nodeJson('n1', 1001, `[${AMD64}]`, ',"Status":"x"')]), [N1], N2, /: node 1: unknown key Status$/],
    [5, record([nodeJson('n1', 1001, `[${AMD64}]`)], '"Name":"rb"'), [N1], N2, /: no key Driver$/],
    [6, record([nodeJson('n1', 1001, `[${AMD64}]`)], undefined, 'true'), [N1], N2, /: Dynamic is true, not false$/],
    [7, record([nodeJson('n1', 1001, `[${AMD64}]`)], '"Name":"rb","Driver":"docker-container"'), [N1], N2, /: Driver is "docker-container", not "remote"$/],
    [8, record([nodeJson('n1', 1001, `[${AMD64}]`)], '"Name":"other","Driver":"remote"'), [N1], N2, /: Name is "other", not "rb"$/],
    [9, record([nodeJson('n1', 1009, `[${AMD64}]`)]), [N1], N2, /: node 1 \(n1\) has Endpoint "tcp:\/\/127\.0\.0\.1:1009", not "tcp:\/\/127\.0\.0\.1:1001"$/],
    [10, record([nodeJson('n1', 1001, `[${AMD64}]`).replace('/c/n1/key.pem', '/elsewhere/key.pem')]), [N1], N2, /: node 1 \(n1\) has DriverOpts .*elsewhere.*, not /],
    [11, record([nodeJson('n1', 1001, `[${AMD64}]`).replace('"Flags":null', '"Flags":["--debug"]')]), [N1], N2, /: node 1 \(n1\) has Flags \["--debug"\], not null$/],
    [12, record([nodeJson('n1', 1001, `[${AMD64}]`).replace('"Files":null', '"Files":{"buildkitd.toml":"W3dvcmtlci5vY2ld"}')]), [N1], N2, /: node 1 \(n1\) has Files \{"buildkitd\.toml":"W3dvcmtlci5vY2ld"\}, not null$/],
    [13, record([nodeJson('n1', 1001, `[${ARMV7}]`)]), [N1], N2, /: node 1 \(n1\) has Platforms .*"arm".*, not \[\{"architecture":"amd64","os":"linux"\}\]$/],
    [14, ONE, [N1, N2], N3, /: it has 1 nodes, not 2$/],
    [15, record([nodeJson('n1', 1001, `[${ARMV7}]`)]), [armNode], N2, /^node n1: platform "linux\/arm" is not one whose stored form we know$/],
    [16, ONE, [N1], {...N2, platforms: ['linux/arm64/v8']}, /^node n2: platform "linux\/arm64\/v8" is not one/],
    [17, ONE, [N1], {...N2, name: 'N1'}, /^the builder has a node named n1 already$/],
    [18, ONE, [N1], {...N2, endpoint: N1.endpoint}, /^the builder has a node at tcp:\/\/127\.0\.0\.1:1001 already$/],
    [19, ONE, [N1], {...N2, certs: {...N2.certs, key: 'key.pem'}}, /^node n2: key path "key\.pem" is not one we write as buildx does$/],
    [20, ONE, [N1], {...N2, name: '2nd'}, /^node name "2nd" is not one buildx accepts$/],
    [21, ONE, [N1], {...N2, endpoint: 'ssh://host'}, /^node n2: endpoint "ssh:\/\/host" is not a tcp:\/\/ address$/],
    [22, ONE, [], N2, /^no node was created yet$/]
  ])('[%d] refuses and writes nothing: %o', (_n, before, existing, node, why) => {
    if (before !== undefined) writeFileSync(recordPath(), before, {mode: 0o600});
    const res = appendNodesToStore({configDir, builder: 'rb', existing, nodes: [node]});
    expect(res).toEqual({appended: false, why: expect.stringMatching(why)});
    expect(existsSync(recordPath()) ? readFileSync(recordPath(), 'utf8') : undefined).toBe(before);
    expect(files()).toEqual(before === undefined ? ['activity', 'instances'] : ['activity', 'instances', 'instances/rb']);
  });

  test('several nodes in one write: the record two appends in a row leave', () => {
    writeFileSync(recordPath(), ONE, {mode: 0o600});
    expect(appendNodesToStore({configDir, builder: 'rb', existing: [N1], nodes: [N2, N3]})).toEqual({appended: true});
    expect(readFileSync(recordPath(), 'utf8')).toBe(THREE);
    expect(files()).toEqual(['activity', 'activity/rb', 'instances', 'instances/rb']);
  });

  test('several nodes: one that cannot be written refuses them all, and nothing is written', () => {
    writeFileSync(recordPath(), ONE, {mode: 0o600});
    const res = appendNodesToStore({
      configDir,
      builder: 'rb',
      existing: [N1],
      nodes: [N2, {...N3, endpoint: N2.endpoint}]
    });
    expect(res).toEqual({appended: false, why: expect.stringMatching(/^the builder has a node at .* already$/)});
    expect(readFileSync(recordPath(), 'utf8')).toBe(ONE);
  });

  test('refuses while buildx has a default buildkitd config (it would give the node that config)', () => {
    writeFileSync(recordPath(), ONE);
    writeFileSync(join(configDir, 'buildkitd.default.toml'), '[worker.oci]\n');
    const res = appendNodesToStore({configDir, builder: 'rb', existing: [N1], nodes: [N2]});
    expect(res).toEqual({appended: false, why: expect.stringMatching(/buildkitd\.default\.toml exists/)});
    expect(readFileSync(recordPath(), 'utf8')).toBe(ONE);
  });
});
