// Generates .github/workflows/examples.yml from examples/*.yml: one GitHub job per example job, on GitHub's
// runner, that starts the emulator in the background, puts the recording fake docker on PATH, and then runs
// the example's own steps with `uses: ./actions/<name>` (the committed node24 bundles under the real
// runner), `vars.REMOTE_BUILDER_API_URL` and `secrets.REMOTE_BUILDER_API_KEY` pointing at the emulator,
// its checkout replaced by the fixture files and its registry login dropped. Then it checks the outputs,
// and a post step registered first (so it runs last) checks that every builder was torn down.
//
// The examples suite fails when the committed workflow differs from this output. To regenerate:
//   npx tsx packages/emulator/__faults__/kit/examples-ci.ts && npx prettier --write .github/workflows/examples.yml
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {pathToFileURL} from 'node:url';
import {Document} from 'yaml';
import {ROOT} from './actions.js';
import {EXAMPLE_SETUPS, EXAMPLES_API_KEY, EXAMPLES_API_KEYS, EXAMPLES_PROFILES} from './examples-setup.js';
import {
  FOREIGN_ACTIONS,
  PINNED_VERSIONS,
  loadExamples,
  stepKind,
  type Example,
  type WorkflowStep
} from './examples-workflow.js';

export const EXAMPLES_WORKFLOW = join(ROOT, '.github/workflows/examples.yml');
const PORT = 8080;
const URL = `http://127.0.0.1:${PORT}`;

/** The expressions CI replaces: GitHub has no such variable or secret for this repository. */
const REPLACED: Record<string, string> = {
  'vars.REMOTE_BUILDER_API_URL': URL,
  'secrets.REMOTE_BUILDER_API_KEY': EXAMPLES_API_KEY
};

function rewrite(text: string): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (whole, expr: string) => REPLACED[expr] ?? whole);
}

function rewriteValues<T extends Record<string, unknown>>(values: T | undefined): Record<string, unknown> | undefined {
  if (!values) return undefined;
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? rewrite(v) : v]));
}

/** A `run:` that writes files with quoted heredocs (no expansion of their text). */
function writeFilesScript(files: Record<string, string>): string {
  return Object.entries(files)
    .map(([file, text]) => `mkdir -p "$(dirname '${file}')"\ncat > '${file}' <<'EXAMPLE_EOF'\n${text}EXAMPLE_EOF`)
    .join('\n');
}

/** The example's steps as CI runs them. */
function ciSteps(example: Example, jobId: string, steps: WorkflowStep[]): Record<string, unknown>[] {
  const setup = EXAMPLE_SETUPS[example.id];
  if (!setup) throw new Error(`examples/${example.id}.yml has no entry in EXAMPLE_SETUPS (kit/examples-setup.ts)`);
  const out: Record<string, unknown>[] = [];
  steps.forEach((step, i) => {
    const where = `examples/${example.id}.yml job ${jobId} step ${i + 1}`;
    const kind = stepKind(step, where);
    if (kind.kind === 'foreign') {
      if (kind.action.startsWith('actions/checkout@')) {
        out.push({name: `Example files (instead of the example's checkout)`, run: writeFilesScript(setup.workspace)});
      }
      // docker/login-action: dropped (nothing is pushed anywhere).
      return;
    }
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(step)) {
      if (k === 'uses' && kind.kind === 'ours') copy[k] = `./actions/${kind.action}`;
      else if (k === 'with' || k === 'env') copy[k] = rewriteValues(v as Record<string, unknown>);
      else copy[k] = typeof v === 'string' ? rewrite(v) : v;
    }
    out.push(copy);
  });
  return out;
}

/** The whole workflow, as a plain object. */
export function examplesWorkflow(examples: Example[] = loadExamples()): Record<string, unknown> {
  const config = JSON.stringify({profiles: EXAMPLES_PROFILES, apiKeys: EXAMPLES_API_KEYS});
  const jobs: Record<string, unknown> = {};
  for (const example of examples) {
    const setup = EXAMPLE_SETUPS[example.id];
    if (!setup) throw new Error(`examples/${example.id}.yml has no entry in EXAMPLE_SETUPS (kit/examples-setup.ts)`);
    const ids = Object.keys(example.workflow.jobs);
    for (const jobId of ids) {
      const job = example.workflow.jobs[jobId]!;
      const name = ids.length === 1 ? example.id : `${example.id}-${jobId}`;
      const env = {...rewriteValues(example.workflow.env), ...rewriteValues(job.env)};
      // Each output reaches the check through env:, never pasted into the script.
      const outputs = Object.entries(setup.outputs).flatMap(([id, names]) =>
        names.map(o => ({id, o, name: `OUT_${id}_${o}`.replace(/[^A-Za-z0-9_]/g, '_').toUpperCase()}))
      );
      const checks = outputs.map(
        ({id, o, name}) => `test -n "$${name}" || { echo "::error::output ${o} of step ${id} is empty"; exit 1; }`
      );
      const checkEnv = Object.fromEntries(outputs.map(({id, o, name}) => [name, `\${{ steps.${id}.outputs.${o} }}`]));
      jobs[name] = {
        name: `examples/${example.id}.yml (${jobId})`,
        'runs-on': 'ubuntu-latest',
        'timeout-minutes': 15,
        permissions: {contents: 'read'},
        ...(Object.keys(env).length > 0 ? {env} : {}),
        steps: [
          {uses: FOREIGN_ACTIONS[0], with: {'persist-credentials': false}},
          {
            uses: 'actions/setup-node@820762786026740c76f36085b0efc47a31fe5020',
            with: {'node-version': 24, cache: 'npm'}
          },
          {run: 'npm ci'},
          {
            name: 'Start the emulator',
            run: [
              `echo '${config}' > "$RUNNER_TEMP/emulator.json"`,
              `nohup npm run emulator -- --port ${PORT} --profiles "$RUNNER_TEMP/emulator.json" --quiet > "$RUNNER_TEMP/emulator.log" 2>&1 &`,
              `for i in $(seq 1 60); do curl -fsS ${URL}/_emulator/health 2>/dev/null && exit 0; sleep 1; done`,
              `cat "$RUNNER_TEMP/emulator.log"; exit 1`
            ].join('\n')
          },
          {
            name: 'Check the ledger after every other post step',
            uses: './examples/.ci/ledger-check',
            with: {url: URL, assigned: setup.assigned}
          },
          {
            name: 'The recording fake docker on PATH',
            run: [
              'echo "$GITHUB_WORKSPACE/packages/emulator/fake-docker" >> "$GITHUB_PATH"',
              'echo "FAKE_DOCKER_DIR=$RUNNER_TEMP/fake-docker" >> "$GITHUB_ENV"'
            ].join('\n')
          },
          ...(setup.faults ?? []).map(f => ({
            name: `Fault: ${f.route}`,
            run: `curl -fsS -X POST -H 'content-type: application/json' -d '${JSON.stringify(f)}' ${URL}/_emulator/faults`
          })),
          ...ciSteps(example, jobId, job.steps),
          {name: 'Check the outputs', env: checkEnv, run: checks.join('\n')},
          {name: 'Emulator log', if: 'failure()', run: 'cat "$RUNNER_TEMP/emulator.log"'}
        ]
      };
    }
  }
  return {
    name: 'examples',
    on: {push: {branches: ['main']}, pull_request: {}, workflow_dispatch: {}},
    permissions: {},
    concurrency: {group: 'examples-${{ github.ref }}', 'cancel-in-progress': true},
    jobs
  };
}

/** The workflow file's text (prettier may reformat it; the suite compares the parsed documents). */
export function examplesWorkflowText(): string {
  const doc = new Document(examplesWorkflow());
  doc.commentBefore =
    ' Generated from examples/*.yml by packages/emulator/__faults__/kit/examples-ci.ts: do not edit by hand.\n' +
    " Runs every example on GitHub's runner through `uses: ./actions/<name>` (the committed node24 bundles)\n" +
    ' against the emulator started in the job, with the recording fake docker. Regenerate with\n' +
    '   npx tsx packages/emulator/__faults__/kit/examples-ci.ts && npx prettier --write .github/workflows/examples.yml';
  // The version beside each pinned SHA, as every workflow of ours writes it.
  return doc
    .toString({lineWidth: 0})
    .replace(/^(\s*(?:- )?uses: )(\S+@[0-9a-f]{40})$/gm, (line, _prefix: string, ref: string) =>
      PINNED_VERSIONS[ref] ? `${line} # ${PINNED_VERSIONS[ref]}` : line
    );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(EXAMPLES_WORKFLOW, examplesWorkflowText());
  console.log(`Wrote ${EXAMPLES_WORKFLOW}`);
}
