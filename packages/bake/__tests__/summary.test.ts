import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {
  BuildStepState,
  MemoryStateStore,
  runPostStep,
  type ActionIO,
  type Exec,
  type ExecResult,
  nullLogger
} from '@remote-builder-actions/core/step';
import {bake} from '../src/bake.js';
import {Input} from '../src/context.js';
import {SUMMARY_INPUTS} from '../src/summary.js';

const DEFINITION = {target: {app: {context: '.', dockerfile: 'Dockerfile', platforms: ['linux/amd64']}}};
const INSPECT = 'Name: shared\nDriver: remote\n\nName: n0\nBuildKit version: v0.13.2\nPlatforms: linux/amd64*\n';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bake-summary-test-'));
});
afterEach(() => {
  rmSync(root, {recursive: true, force: true});
});

/** A step's io: main and post share its state, as the runner's STATE_ variables do. */
function stepIO(inputs: Record<string, string>): {io: ActionIO; summaries: string[]} {
  const summaries: string[] = [];
  const io: ActionIO = {
    logger: nullLogger,
    state: new MemoryStateStore(),
    env: {GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '5', RUNNER_TEMP: root},
    getInput: n => (inputs[n] ?? '').trim(),
    setOutput: () => undefined,
    exportVariable: () => undefined,
    writeMarkdownSummary: async m => void summaries.push(m),
    setFailed: () => undefined
  };
  return {io, summaries};
}

/** docker: buildx version, `bake --print` (or its failure), inspect, a bake that writes its metadata. */
function docker(printError?: string): Exec {
  return {
    run: async (_cmd, args): Promise<ExecResult> => {
      const ok = (stdout = ''): ExecResult => ({exitCode: 0, stdout, stderr: ''});
      if (args[1] === 'version') return ok('github.com/docker/buildx v0.19.1 abc\n');
      if (args[1] === 'inspect') return ok(INSPECT);
      if (args.includes('--print')) {
        return printError
          ? {exitCode: 1, stdout: '', stderr: `ERROR: ${printError}\n`}
          : ok(JSON.stringify(DEFINITION));
      }
      if (args[1] === 'bake') {
        const meta = args[args.indexOf('--metadata-file') + 1] as string;
        writeFileSync(meta, JSON.stringify({app: {'containerimage.digest': 'sha256:app'}}));
      }
      return ok();
    }
  };
}

const post = (io: ActionIO, exec: Exec) =>
  runPostStep(
    {io, exec},
    {
      apiKeyInput: Input.ApiKey,
      builderInput: Input.Builder,
      tmpDirState: BuildStepState.TmpDir,
      summaryInputs: SUMMARY_INPUTS
    }
  );

describe("bake's job summary: main leaves the definition, post writes it with the inputs", () => {
  test('a bake: the definition main printed, the inputs, the folder removed by post', async () => {
    const {io, summaries} = stepIO({builder: 'shared', source: '.', targets: 'app', 'github-token': 'ghs_tok_value'});
    const exec = docker();
    await bake({io, exec});
    const folder = io.state.get(BuildStepState.TmpDir) as string;
    expect(existsSync(folder)).toBe(true);
    await post(io, exec);
    expect(existsSync(folder)).toBe(false);
    expect(summaries).toHaveLength(1);
    const summary = summaries[0] as string;
    expect(summary).toContain(`\`\`\`json\n${JSON.stringify(DEFINITION)}\n\`\`\``);
    expect(summary).toContain('```yaml\nbuilder: shared\nsource: .\ntargets:\n  - app\n');
    expect(summary).not.toContain('ghs_tok_value');
    expect(summary).toContain('✅ **Succeeded**');
  });

  test('a missing bake file: the short failure block, nothing billed', async () => {
    const {io, summaries} = stepIO({builder: 'shared', source: '.'});
    const exec = docker('failed to read docker-bake.hcl: open docker-bake.hcl: no such file or directory');
    await expect(bake({io, exec})).rejects.toThrow(/Failed to resolve the bake definition/);
    await post(io, exec);
    const summary = summaries[0] as string;
    expect(summary).toContain('❌ **Failed** in phase `local checks`');
    expect(summary).toContain('Nothing was assigned: **nothing was billed**.');
    expect(summary).toContain('open docker-bake.hcl: no such file or directory');
    expect(summary).not.toContain('Bake definition');
  });
});
