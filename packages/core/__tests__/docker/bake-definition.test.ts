import {describe, expect, test} from '@jest/globals';
import {
  bakeHasDockerExporter,
  bakePrintArgs,
  isRemoteBakeRef,
  parseAttestEntry,
  parseBakeDefinition,
  parseExportEntry,
  targetHasProvenance,
  targetPlatforms,
  type BakePrintOpts
} from '../../src/docker/bake-definition.js';
import {buildkitSupportsAttestations, noDefaultAttestations} from '../../src/docker/buildkit-support.js';
import {buildSummaryEnabled} from '../../src/provisioning/summary-env.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

describe('parseBakeDefinition (docker Bake.parseDefinition)', () => {
  test('attest and output become entries, whether buildx printed strings or objects', () => {
    const def = parseBakeDefinition(
      JSON.stringify({
        group: {default: {targets: ['a', 'b']}},
        target: {
          a: {attest: ['type=provenance,mode=max', 'type=sbom'], output: ['type=registry'], platforms: ['linux/amd64']},
          b: {attest: [{type: 'provenance', mode: 'min'}], output: [{type: 'docker'}, './out', '-'], tags: 'x/y:1'}
        }
      })
    );
    expect(def.group).toEqual({default: {targets: ['a', 'b']}});
    expect(def.target['a']?.attest).toEqual([{type: 'provenance', mode: 'max'}, {type: 'sbom'}]);
    expect(def.target['b']?.output).toEqual([
      {type: 'docker'},
      {type: 'local', dest: './out'},
      {type: 'tar', dest: '-'}
    ]);
    expect(def.target['b']?.tags).toEqual(['x/y:1']);
    expect(targetHasProvenance(def.target['a']!)).toBe(true);
    expect(bakeHasDockerExporter(def, false)).toBe(true);
  });

  // prettier-ignore
  test.each([
    [1, 'not json', /not JSON/],
    [2, '[]', /no "target" object/],
    [3, '{"target": {"a": 1}}', /target "a" of the bake definition is not an object/]
  ])('[%d] rejects %s', (_n, text, message) => {
    expect(() => parseBakeDefinition(text)).toThrow(message);
  });

  test('entries: quoted values, keys split at the first "="', () => {
    expect(parseExportEntry('type=image,"name=a/b:1,a/b:2",push=true')).toEqual({
      type: 'image',
      name: 'a/b:1,a/b:2',
      push: 'true'
    });
    expect(parseAttestEntry('type=provenance,builder-id=https://x/y?a=b')).toEqual({
      type: 'provenance',
      'builder-id': 'https://x/y?a=b'
    });
  });

  test('exporters: load, or a docker output, means the docker image store', () => {
    const def = parseBakeDefinition('{"target": {"a": {"output": ["type=cacheonly"]}}}');
    expect(bakeHasDockerExporter(def, false)).toBe(false);
    expect(bakeHasDockerExporter(def, true)).toBe(true);
  });

  test('targetPlatforms: lists and comma strings; none → []', () => {
    const def = parseBakeDefinition(
      '{"target": {"a": {"platforms": ["linux/amd64,linux/arm64", " linux/386 "]}, "b": {}}}'
    );
    expect(targetPlatforms(def.target['a']!)).toEqual(['linux/amd64', 'linux/arm64', 'linux/386']);
    expect(targetPlatforms(def.target['b']!)).toEqual([]);
  });
});

describe('isRemoteBakeRef (docker Util.isValidRef)', () => {
  // prettier-ignore
  test.each([
    ['https://github.com/o/r.git#main', true], ['http://10.0.0.5:22827/o/r.git', true], ['git://host/r.git', true],
    ['github.com/o/r', true], ['git@github.com:o/r.git', true], ['./docker-bake.hcl', false], ['docker-bake.hcl', false],
    ['ftp://x/y', false], ['', false]
  ])('%s → %s', (ref, expected) => {
    expect(isRemoteBakeRef(ref)).toBe(expected);
  });
});

describe('bakePrintArgs (docker Bake.getDefinition)', () => {
  const base: BakePrintOpts = {
    files: [],
    source: '',
    set: [],
    allow: [],
    call: '',
    load: false,
    noCache: false,
    provenance: '',
    push: false,
    sbom: '',
    targets: []
  };
  test('the remote definition goes first; local sources become --file', () => {
    expect(bakePrintArgs({...base, files: ['a.hcl'], source: './sub', targets: ['t']})).toEqual([
      'bake',
      '--file',
      'a.hcl',
      '--file',
      './sub',
      '--print',
      't'
    ]);
    expect(bakePrintArgs({...base, files: ['https://x/r.git', 'b.hcl']})).toEqual([
      'bake',
      'https://x/r.git',
      '--file',
      'b.hcl',
      '--print'
    ]);
  });

  test('two remote definitions are refused', () => {
    expect(() => bakePrintArgs({...base, files: ['https://x/a.git'], source: 'https://x/b.git'})).toThrow(
      /only one remote bake definition/
    );
  });
});

describe('buildkitSupportsAttestations, noDefaultAttestations, buildSummaryEnabled', () => {
  test('every node needs BuildKit >= 0.11.0 (a docker node a -moby one)', () => {
    expect(buildkitSupportsAttestations([{buildkit: 'v0.11.0'}, {buildkit: 'v0.13.2'}])).toBe(true);
    expect(buildkitSupportsAttestations([{buildkit: 'v0.11.0'}, {buildkit: 'v0.10.6'}])).toBe(false);
    expect(buildkitSupportsAttestations([{}])).toBe(false);
    expect(buildkitSupportsAttestations([{buildkit: '24.0.7'}], 'docker')).toBe(false);
    expect(buildkitSupportsAttestations([{buildkit: 'v0.12.5-moby'}], 'docker')).toBe(true);
  });

  test('BUILDX_NO_DEFAULT_ATTESTATIONS', () => {
    expect(noDefaultAttestations({})).toBe(false);
    expect(noDefaultAttestations({BUILDX_NO_DEFAULT_ATTESTATIONS: '1'})).toBe(true);
    expect(noDefaultAttestations({BUILDX_NO_DEFAULT_ATTESTATIONS: 'false'})).toBe(false);
  });

  test('DOCKER_BUILD_SUMMARY; a value that is not a boolean warns and keeps the summary', () => {
    const io = (env: NodeJS.ProcessEnv) => ({env, logger: new RecordingLogger()});
    expect(buildSummaryEnabled(io({}))).toBe(true);
    expect(buildSummaryEnabled(io({DOCKER_BUILD_SUMMARY: 'false'}))).toBe(false);
    expect(buildSummaryEnabled(io({DOCKER_BUILD_SUMMARY: '0'}))).toBe(false);
    const bad = io({DOCKER_BUILD_SUMMARY: 'nope'});
    expect(buildSummaryEnabled(bad)).toBe(true);
    expect(bad.logger.messages('warning')).toEqual([
      'DOCKER_BUILD_SUMMARY="nope" is not a boolean (use true or false); writing the job summary'
    ]);
  });

  test('the variables docker v7 removed are ignored, each with a warning naming what to do', () => {
    const removed = {
      env: {
        DOCKER_BUILD_NO_SUMMARY: 'true',
        DOCKER_BUILD_EXPORT_RETENTION_DAYS: '3',
        DOCKER_BUILD_EXPORT_LEGACY: 'true'
      },
      logger: new RecordingLogger()
    };
    expect(buildSummaryEnabled(removed)).toBe(true);
    expect(removed.logger.messages('warning')).toEqual([
      "DOCKER_BUILD_NO_SUMMARY is ignored: docker's actions v7 removed it; set DOCKER_BUILD_SUMMARY=false instead.",
      "DOCKER_BUILD_EXPORT_RETENTION_DAYS is ignored: docker's actions v7 removed it; set DOCKER_BUILD_RECORD_RETENTION_DAYS instead (the build record artifact's retention in days).",
      "DOCKER_BUILD_EXPORT_LEGACY is ignored: docker's actions v7 removed it; there is no replacement: remove it."
    ]);
  });
});
