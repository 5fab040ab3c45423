// Build-check annotations against docker's rules (actions-toolkit 0.92.0 Buildx.convertWarningsToGitHubAnnotations,
// as build-push-action v7.3.0 and bake-action v7.1.0 call it). The metadata fixtures are actions-toolkit's own
// (__tests__/.fixtures/metadata-build.json, metadata-bake.json): real buildx output with warnings.
import {afterEach, beforeEach, describe, expect, jest, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {actionsLogger} from '../../src/adapters/actions.js';
import {
  annotateBuildChecks,
  buildChecksAnnotationsEnabled,
  metadataBuildRefs,
  metadataWarnings,
  warningsToAnnotations,
  type VertexWarning
} from '../../src/docker/build-checks.js';
import {
  findDockerfiles,
  fixLocalState,
  type BuildxLocalState,
  type CheckedDockerfile
} from '../../src/docker/dockerfile-lookup.js';
import type {BuildMetadata} from '../../src/docker/build-result.js';
import type {AnnotationProperties, Logger} from '../../src/logger.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'build-checks');
const fixture = (name: string): BuildMetadata =>
  JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as BuildMetadata;
const BUILD = fixture('metadata-build.json');
const BAKE = fixture('metadata-bake.json');
const BUILD_WARNINGS = metadataWarnings(BUILD) as VertexWarning[];
const BAKE_WARNINGS = metadataWarnings(BAKE) as VertexWarning[];
/** The Dockerfile a warning was raised on, as buildx sent it (base64). */
const dataOf = (w: VertexWarning | undefined): string => w?.sourceInfo?.data ?? '';
const textOf = (w: VertexWarning | undefined): string => Buffer.from(dataOf(w), 'base64').toString('utf8');
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** Records every line, warnings with their annotation properties. */
class TestLogger implements Logger {
  readonly lines: string[] = [];
  readonly warnings: {message: string; properties?: AnnotationProperties}[] = [];
  readonly groups: string[] = [];
  debug(m: string): void {
    this.lines.push(`debug: ${m}`);
  }
  info(m: string): void {
    this.lines.push(m);
  }
  untrusted(m: string): void {
    this.lines.push(m);
  }
  warning(message: string, properties?: AnnotationProperties): void {
    this.lines.push(`warning: ${message}`);
    this.warnings.push(properties ? {message, properties} : {message});
  }
  error(m: string): void {
    this.lines.push(`error: ${m}`);
  }
  group<T>(title: string, fn: () => Promise<T>): Promise<T> {
    this.groups.push(title);
    return fn();
  }
  setSecret(): void {}
}

const CASING_URL = 'https://docs.docker.com/go/dockerfile/rule/consistent-instruction-casing/';
const CASING_TITLE = 'Instructions should be in consistent casing (all lower or all upper)';

describe('warningsToAnnotations (docker: one per warning, first matching Dockerfile, first line only)', () => {
  const local: CheckedDockerfile = {path: 'Dockerfile', content: dataOf(BUILD_WARNINGS[0])};
  const short = (s: string) => b64(s);
  const base: VertexWarning = {
    short: short('JSONArgsRecommended: JSON arguments recommended for CMD (line 4)'),
    detail: [short('JSON arguments recommended'), short('for ENTRYPOINT/CMD')],
    url: 'https://docs.docker.com/go/dockerfile/rule/json-args-recommended/',
    sourceInfo: {filename: 'Dockerfile', data: b64('FROM a\nCMD b\n')},
    range: [{start: {line: 4}, end: {line: 5}}]
  };
  const sameFile: CheckedDockerfile = {path: 'app/Dockerfile', content: b64('FROM a\nCMD b\n')};
  const jsonArgs = {
    title: 'JSON arguments recommended for ENTRYPOINT/CMD',
    message:
      'JSONArgsRecommended: JSON arguments recommended for CMD\nMore info: https://docs.docker.com/go/dockerfile/rule/json-args-recommended/'
  };

  // prettier-ignore
  test.each([
    ['buildx metadata: 3 warnings on the Dockerfile (the third has 3 ranges: its first line only)', BUILD_WARNINGS, [local], [
      {title: CASING_TITLE, message: `ConsistentInstructionCasing: Command 'frOM' should be consistently cased\nMore info: ${CASING_URL}`, file: 'Dockerfile', startLine: 2},
      {title: CASING_TITLE, message: `ConsistentInstructionCasing: Command 'cOpy' should be consistently cased\nMore info: ${CASING_URL}`, file: 'Dockerfile', startLine: 3},
      {title: CASING_TITLE, message: `ConsistentInstructionCasing: Command 'COPy' should be consistently cased\nMore info: ${CASING_URL}`, file: 'Dockerfile', startLine: 6}
    ]],
    ['the content differs from sourceInfo.data: not annotated', BUILD_WARNINGS, [{path: 'Dockerfile', content: b64('FROM other\n')}], []],
    ['the path does not end with sourceInfo.filename: not annotated', BUILD_WARNINGS, [{path: 'Dockerfile.dev', content: dataOf(BUILD_WARNINGS[0])}], []],
    ['detail lines joined by a space, " (line N)" cut, url appended, nested path kept', [base], [sameFile], [{...jsonArgs, file: 'app/Dockerfile', startLine: 4}]],
    ['a remote (Git) Dockerfile takes every warning without reading it', [base], [{path: 'docker/Dockerfile', remote: true}], [{...jsonArgs, file: 'docker/Dockerfile', startLine: 4}]],
    ['the first matching Dockerfile wins, in ref order', [base], [{path: 'x/Dockerfile', content: b64('no')}, sameFile, {path: 'y/Dockerfile', remote: true}], [{...jsonArgs, file: 'app/Dockerfile', startLine: 4}]],
    ['no url: no "More info"; no range: no line', [{...base, url: '', range: []}], [sameFile], [{title: jsonArgs.title, message: 'JSONArgsRecommended: JSON arguments recommended for CMD', file: 'app/Dockerfile', startLine: undefined}]],
    ['" (line N)" is cut only at the end', [{...base, short: short('Rule: a (line 2) b')}], [sameFile], [{title: jsonArgs.title, message: `Rule: a (line 2) b\nMore info: ${base.url}`, file: 'app/Dockerfile', startLine: 4}]],
    ['no short, no detail, no sourceInfo filename or data: skipped', [{...base, short: ''}, {...base, detail: undefined}, {...base, sourceInfo: {data: 'eA=='}}, {...base, sourceInfo: {filename: 'Dockerfile'}}], [{path: 'Dockerfile', remote: true}], []],
    // atob: one character per byte, as docker decodes (a UTF-8 quote shows as Latin-1 characters).
    ['decoded byte by byte, like atob', [{...base, short: short('Rule: ‘x’ (line 1)'), url: undefined}], [sameFile], [{title: jsonArgs.title, message: Buffer.from('Rule: ‘x’', 'utf8').toString('latin1'), file: 'app/Dockerfile', startLine: 4}]],
    ['no warnings', [], [sameFile], []]
  ] as [string, VertexWarning[], CheckedDockerfile[], object[]][])('%s', (_name, warnings, dockerfiles, expected) => {
    expect(warningsToAnnotations(warnings, dockerfiles, new TestLogger())).toEqual(expected);
  });

  test('a skipped warning says why in a debug line', () => {
    const logger = new TestLogger();
    warningsToAnnotations([{...base, short: short('x')}], [{path: 'Dockerfile', content: b64('no')}], logger);
    expect(logger.lines).toEqual([
      `debug: Buildx.convertWarningsToGitHubAnnotations: skipping warning without matching Dockerfile Dockerfile: ${jsonArgs.title}`
    ]);
  });
});

describe('metadataWarnings and metadataBuildRefs (docker resolveWarnings, resolveRef, Bake.resolveRefs)', () => {
  test('build: the warnings and the one ref', () => {
    expect(BUILD_WARNINGS).toHaveLength(3);
    expect(metadataBuildRefs(BUILD, 'build-push')).toEqual(['default/default/n6ibcp9b2pw108rrz7ywdznvo']);
  });

  test("bake: the warnings at the top, every target's ref in the file's order", () => {
    expect(BAKE_WARNINGS).toHaveLength(13);
    expect(metadataBuildRefs(BAKE, 'bake')).toEqual([
      'default/default/x3tig9yrbzg2bp0ahn840m9hs',
      'default/default/f9i6og3j529lrezk83aw9k8fr',
      'default/default/yfq4itxr5kgustkcmp8jr4b9m'
    ]);
  });

  // prettier-ignore
  test.each([
    [undefined, undefined, []],
    [{'containerimage.digest': 'sha256:x'}, undefined, []],
    [{'buildx.build.warnings': {}, 'buildx.build.ref': ''}, undefined, []]
  ] as [BuildMetadata | undefined, VertexWarning[] | undefined, string[]][])('%j: warnings %j, refs %j', (metadata, warnings, refs) => {
    expect(metadataWarnings(metadata)).toEqual(warnings);
    expect(metadataBuildRefs(metadata, 'build-push')).toEqual(refs);
    expect(metadataBuildRefs(metadata, 'bake')).toEqual(refs);
  });
});

describe('fixLocalState (docker/buildx#2560)', () => {
  // prettier-ignore
  test.each([
    [{LocalPath: '/home/runner/work/r/r', DockerfilePath: '/home/runner/work/r/r/Dockerfile'}, {LocalPath: '/home/runner/work/r/r', DockerfilePath: '/home/runner/work/r/r/Dockerfile'}],
    [{LocalPath: '/w/https:/github.com/o/r.git#main', DockerfilePath: '/w/Dockerfile'}, {LocalPath: 'https://github.com/o/r.git#main', DockerfilePath: 'Dockerfile'}],
    [{LocalPath: 'https://github.com/o/r.git', DockerfilePath: 'docker/Dockerfile'}, {LocalPath: 'https://github.com/o/r.git', DockerfilePath: 'docker/Dockerfile'}],
    [{LocalPath: '/w/git:/example.com/r', DockerfilePath: 'x/Dockerfile'}, {LocalPath: 'git://example.com/r', DockerfilePath: 'x/Dockerfile'}],
    [{LocalPath: '/w/-', DockerfilePath: '/w/-'}, {LocalPath: '-', DockerfilePath: '-'}]
  ] as [BuildxLocalState, BuildxLocalState][])('%j', (ls, fixed) => {
    expect(fixLocalState(ls)).toEqual(fixed);
  });
});

describe("findDockerfiles (docker: the build refs' local state)", () => {
  let root: string;
  let ws: string;
  let refsDir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'build-checks-'));
    ws = join(root, 'ws');
    refsDir = join(root, 'buildx', 'refs');
    mkdirSync(join(ws, 'app'), {recursive: true});
    writeFileSync(join(ws, 'Dockerfile'), 'FROM a\n');
    writeFileSync(join(ws, 'app', 'Dockerfile'), 'FROM b\n');
    writeFileSync(join(root, 'Dockerfile'), 'FROM outside\n');
  });
  afterEach(() => rmSync(root, {recursive: true, force: true}));

  const state = (id: string, ls: object | string): string => {
    mkdirSync(join(refsDir, 'b', 'n'), {recursive: true});
    writeFileSync(join(refsDir, 'b', 'n', id), typeof ls === 'string' ? ls : JSON.stringify(ls));
    return `b/n/${id}`;
  };
  const find = (refs: string[], repository = 'o/r') => {
    const logger = new TestLogger();
    const found = findDockerfiles(refs, {logger, refsDir, workspace: ws, repository, cwd: ws});
    return {found, debug: logger.lines};
  };

  // prettier-ignore
  test.each([
    ['a local Dockerfile in the workspace: its path there and its content', () => ({LocalPath: ws, DockerfilePath: join(ws, 'app', 'Dockerfile')}), [{path: 'app/Dockerfile', content: b64('FROM b\n')}]],
    ['no DockerfilePath: "Dockerfile" from the cwd', () => ({LocalPath: ws, DockerfilePath: ''}), [{path: 'Dockerfile', content: b64('FROM a\n')}]],
    ['stdin (dockerfile-inline, -f -): skipped', () => ({LocalPath: ws, DockerfilePath: '-'}), []],
    ['a Dockerfile outside the workspace: skipped', () => ({LocalPath: root, DockerfilePath: join(root, 'Dockerfile')}), []],
    ['a Dockerfile that is not there: skipped', () => ({LocalPath: ws, DockerfilePath: join(ws, 'gone.Dockerfile')}), []],
    ["this repository's Git context: remote, the path as given", () => ({LocalPath: 'https://github.com/o/r.git#main', DockerfilePath: 'docker/Dockerfile'}), [{path: 'docker/Dockerfile', remote: true}]],
    ["a Git context made absolute by old buildx: fixed, then remote", () => ({LocalPath: `${ws}/https:/github.com/o/r.git#abc`, DockerfilePath: `${ws}/Dockerfile`}), [{path: 'Dockerfile', remote: true}]],
    ['GitHub Enterprise Cloud (*.ghe.com), no Dockerfile path', () => ({LocalPath: 'https://acme.ghe.com/o/r.git', DockerfilePath: ''}), [{path: 'Dockerfile', remote: true}]],
    ['another repository: skipped', () => ({LocalPath: 'https://github.com/o/other.git', DockerfilePath: 'Dockerfile'}), []],
    ['not GitHub: skipped', () => ({LocalPath: 'https://gitlab.com/o/r.git', DockerfilePath: 'Dockerfile'}), []],
    ['an SCP-style Git URL is not a URL to docker: read as a local path', () => ({LocalPath: 'git@github.com:o/r.git', DockerfilePath: 'Dockerfile'}), [{path: 'Dockerfile', content: b64('FROM a\n')}]]
  ] as [string, () => object, CheckedDockerfile[]][])('%s', (_name, ls, expected) => {
    expect(find([state('ref1', ls())]).found).toEqual(expected);
  });

  test('several refs: in order, each refusal a debug line; unreadable state and bad refs are skipped', () => {
    const refs = [
      state('a', {LocalPath: ws, DockerfilePath: join(ws, 'Dockerfile')}),
      'b/n/missing',
      'not-a-ref',
      state('bad', '{'),
      state('c', {LocalPath: ws, DockerfilePath: '-'}),
      state('d', {LocalPath: ws, DockerfilePath: join(ws, 'app', 'Dockerfile')})
    ];
    const {found, debug} = find(refs);
    expect(found.map(d => d.path)).toEqual(['Dockerfile', 'app/Dockerfile']);
    const P = 'debug: Buildx.convertWarningsToGitHubAnnotations';
    expect(debug).toEqual([
      `${P}(b/n/missing): local state not found: Local state not found in ${join(refsDir, 'b', 'n', 'missing')}`,
      `${P}(not-a-ref): local state not found: Invalid build reference: not-a-ref`,
      expect.stringMatching(
        /^debug: Buildx.convertWarningsToGitHubAnnotations\(b\/n\/bad\): local state not found: .*JSON/
      ),
      `${P}(b/n/c): skipping stdin Dockerfile`
    ]);
  });
});

describe('DOCKER_BUILD_CHECKS_ANNOTATIONS (docker parseBool)', () => {
  // prettier-ignore
  test.each([
    [undefined, true, false], ['', true, false], ['true', true, false], ['1', true, false], ['T', true, false],
    ['false', false, false], ['0', false, false], ['f', false, false], ['FALSE', false, false], ['False', false, false],
    ['no', true, true], ['off', true, true]
  ] as [string | undefined, boolean, boolean][])('%j: enabled %j, warns %j', (value, enabled, warns) => {
    const logger = new TestLogger();
    const env = value === undefined ? {} : {DOCKER_BUILD_CHECKS_ANNOTATIONS: value};
    expect(buildChecksAnnotationsEnabled({env, logger})).toBe(enabled);
    expect(logger.warnings.map(w => w.message)).toEqual(
      warns ? [`DOCKER_BUILD_CHECKS_ANNOTATIONS="${value}" is not a boolean (use true or false); annotating build checks`] : []
    );
  });
});

describe('annotateBuildChecks: the lines docker prints', () => {
  let root: string;
  let ws: string;
  let configDir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'build-checks-print-'));
    ws = join(root, 'ws');
    configDir = join(root, 'buildx');
    mkdirSync(ws, {recursive: true});
  });
  afterEach(() => rmSync(root, {recursive: true, force: true}));

  /** buildx's local state of `ref` (builder/node/id). */
  const localState = (ref: string, ls: BuildxLocalState) => {
    const file = join(configDir, 'refs', ...ref.split('/'));
    mkdirSync(dirname(file), {recursive: true});
    writeFileSync(file, JSON.stringify(ls));
  };

  /** Runs annotateBuildChecks on the runner's logger (@actions/core) and returns the lines it printed. */
  async function printed(metadata: BuildMetadata, action: 'build-push' | 'bake', env: NodeJS.ProcessEnv = {}) {
    const out: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation(chunk => {
      out.push(String(chunk));
      return true;
    });
    try {
      await annotateBuildChecks({
        io: {logger: actionsLogger, env: {GITHUB_WORKSPACE: ws, GITHUB_REPOSITORY: 'o/r', ...env}},
        buildx: {configDir: () => configDir},
        action,
        metadata,
        cwd: ws
      });
    } finally {
      spy.mockRestore();
    }
    // Debug lines are docker's internals (and off unless step debugging is on): not compared.
    return out
      .join('')
      .split('\n')
      .filter(l => l !== '' && !l.startsWith('::debug::'));
  }

  /**
   * docker's lines for the fixture build, written out from its code: core.warning(annotation.message,
   * annotation) → toCommandProperties → `::warning title=…,file=…,line=…::message`, `%0A` for the newline.
   */
  const buildLines = (file: string) => [
    '::group::Generating GitHub annotations (3 build checks found)',
    `::warning title=Instructions should be in consistent casing (all lower or all upper),file=${file},line=2::ConsistentInstructionCasing: Command 'frOM' should be consistently cased%0AMore info: https://docs.docker.com/go/dockerfile/rule/consistent-instruction-casing/`,
    `::warning title=Instructions should be in consistent casing (all lower or all upper),file=${file},line=3::ConsistentInstructionCasing: Command 'cOpy' should be consistently cased%0AMore info: https://docs.docker.com/go/dockerfile/rule/consistent-instruction-casing/`,
    `::warning title=Instructions should be in consistent casing (all lower or all upper),file=${file},line=6::ConsistentInstructionCasing: Command 'COPy' should be consistently cased%0AMore info: https://docs.docker.com/go/dockerfile/rule/consistent-instruction-casing/`,
    '::endgroup::'
  ];

  test('build-push: the fixture build on ./Dockerfile', async () => {
    writeFileSync(join(ws, 'Dockerfile'), textOf(BUILD_WARNINGS[0]));
    localState('default/default/n6ibcp9b2pw108rrz7ywdznvo', {Target: 'default', LocalPath: ws, DockerfilePath: ''});
    expect(await printed(BUILD, 'build-push')).toEqual(buildLines('Dockerfile'));
  });

  test("build-push's default Git context of this repository: the Dockerfile path as given, unread", async () => {
    localState('default/default/n6ibcp9b2pw108rrz7ywdznvo', {
      LocalPath: 'https://github.com/o/r.git#refs/heads/main',
      DockerfilePath: 'docker/Dockerfile'
    });
    expect(await printed(BUILD, 'build-push')).toEqual(buildLines('docker/Dockerfile'));
  });

  test('bake: the fixture bake (lint, lint-inline from stdin, lint-other): 12 of 13 warnings, in order', async () => {
    const onLint = BAKE_WARNINGS.find(w => w.sourceInfo?.filename === 'lint.Dockerfile');
    const onOther = BAKE_WARNINGS.find(w => w.sourceInfo?.filename === 'lint-other.Dockerfile');
    writeFileSync(join(ws, 'lint.Dockerfile'), textOf(onLint));
    writeFileSync(join(ws, 'lint-other.Dockerfile'), textOf(onOther));
    localState('default/default/x3tig9yrbzg2bp0ahn840m9hs', {
      Target: 'lint',
      LocalPath: ws,
      DockerfilePath: join(ws, 'lint.Dockerfile')
    });
    localState('default/default/f9i6og3j529lrezk83aw9k8fr', {
      Target: 'lint-inline',
      LocalPath: ws,
      DockerfilePath: '-'
    });
    localState('default/default/yfq4itxr5kgustkcmp8jr4b9m', {
      Target: 'lint-other',
      LocalPath: ws,
      DockerfilePath: join(ws, 'lint-other.Dockerfile')
    });
    const majority = 'All commands within the Dockerfile should use the same casing (either upper or lower)';
    const casing = (file: string, line: number, cmd: string) =>
      `::warning title=${majority},file=${file},line=${line}::ConsistentInstructionCasing: Command '${cmd}' should match the case of the command majority (uppercase)%0AMore info: https://docs.docker.com/go/dockerfile/rule/consistent-instruction-casing/`;
    expect(await printed(BAKE, 'bake')).toEqual([
      '::group::Generating GitHub annotations (12 build checks found)',
      casing('lint-other.Dockerfile', 17, 'frOM'),
      casing('lint-other.Dockerfile', 20, 'froM'),
      casing('lint-other.Dockerfile', 24, 'COPy'),
      casing('lint.Dockerfile', 20, 'from'),
      '::warning title=The MAINTAINER instruction is deprecated%2C use a label instead to define an image author,file=lint.Dockerfile,line=21::MaintainerDeprecated: Maintainer instruction is deprecated in favor of using label%0AMore info: https://docs.docker.com/go/dockerfile/rule/maintainer-deprecated/',
      '::warning title=Multiple instructions of the same type should not be used in the same stage,file=lint.Dockerfile,line=26::MultipleInstructionsDisallowed: Multiple CMD instructions should not be used in the same stage because only the last one will be used%0AMore info: https://docs.docker.com/go/dockerfile/rule/multiple-instructions-disallowed/',
      '::warning title=JSON arguments recommended for ENTRYPOINT/CMD to prevent unintended behavior related to OS signals,file=lint.Dockerfile,line=28::JSONArgsRecommended: JSON arguments recommended for ENTRYPOINT to prevent unintended behavior related to OS signals%0AMore info: https://docs.docker.com/go/dockerfile/rule/json-args-recommended/',
      // The dockerfile-inline warning ("Dockerfile", line 1) matches no file: lint.Dockerfile ends with
      // "Dockerfile" but its content differs, and the inline target came from stdin.
      casing('lint-other.Dockerfile', 23, 'from'),
      casing('lint.Dockerfile', 17, 'frOM'),
      casing('lint.Dockerfile', 18, 'cOpy'),
      casing('lint.Dockerfile', 22, 'COPy'),
      casing('lint-other.Dockerfile', 18, 'cOpy'),
      '::endgroup::'
    ]);
  });

  // prettier-ignore
  test.each([
    ['DOCKER_BUILD_CHECKS_ANNOTATIONS=false', {DOCKER_BUILD_CHECKS_ANNOTATIONS: 'false'}, () => localState('default/default/n6ibcp9b2pw108rrz7ywdznvo', {LocalPath: ws, DockerfilePath: ''})],
    ['no Dockerfile found (no local state for the ref)', {}, () => undefined],
    ['a Git context of another repository', {}, () => localState('default/default/n6ibcp9b2pw108rrz7ywdznvo', {LocalPath: 'https://github.com/x/y.git', DockerfilePath: ''})]
  ] as [string, NodeJS.ProcessEnv, () => void][])('%s: nothing printed', async (_name, env, setUp) => {
    writeFileSync(join(ws, 'Dockerfile'), textOf(BUILD_WARNINGS[0]));
    setUp();
    expect(await printed(BUILD, 'build-push', env)).toEqual([]);
  });

  test('warnings but no build ref: nothing (docker needs a ref)', async () => {
    const {['buildx.build.ref']: _ref, ...noRef} = BUILD;
    expect(await printed(noRef, 'build-push')).toEqual([]);
  });
});
