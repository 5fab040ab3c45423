/** The harness CLI's help: its commands, and each option with what it does and its default. */

/** `npm run harness -- …` runs packages/emulator/src/harness/cli.ts from the repository root. */
const RUN = 'npm run harness --';

export const ACTION_HELP = `Usage: ${RUN} --action dist/<action> [options]

Runs a bundled action's main step (and with --post its post step) the way the GitHub runner does: a node
process per step, INPUT_* variables, fresh command files, main's state handed to post; then a report of
each step (exit, outputs, state, exports, annotations, summary).

Options:
  --action DIR           the bundle folder, e.g. dist/configure (runs DIR/main/index.js, DIR/post/index.js)
  --input NAME=VALUE     an input of the action (repeatable); api-key, github-token and secrets are masked
  --env NAME=VALUE       a variable of the runner machine (repeatable)
  --post                 run the post step after main, with main's state (as post-if: always())
  --timeout MS           per-step time limit in milliseconds (default 600000)
  --inherit-env          pass every variable of this shell to the steps (default: only PATH and HOME)
  --node PATH            the node binary that runs the steps (default: this node)
  --work-dir DIR         keep the job's files (RUNNER_TEMP, command files) in DIR (default: a temporary folder,
                         removed after)
  -h, --help             show this help

Commands:
  job <workflow.yml>     run one job of a workflow file (${RUN} job --help)

Example:
  ${RUN} --action dist/configure --post --input profile-name=default \\
    --input api-url=http://127.0.0.1:8080 --input api-key=emulator-key`;

export const JOB_HELP = `Usage: ${RUN} job <workflow.yml> [options]

Runs one job of a workflow file as it is, the way the GitHub runner does: this repository's actions (from
dist/) and run: steps (bash -e), in order, then the post steps in reverse order; then prints the job summary
as text and the steps' outputs. What it does not run (matrix, if:, needs, another action…) is refused before
any step runs. actions/checkout and docker/login-action are skipped, with a line saying so.

Options:
  --job ID               the job to run (default: the workflow's only job)
  --workspace DIR        GITHUB_WORKSPACE, the checked-out repository: it must exist (default: the current
                         folder); examples/app holds the Dockerfile and docker-bake.hcl the examples build
  --emulator             start an embedded emulator with a profile for each profile-name the job names
                         (one amd64 builder; amd64 + arm64 when the job's platforms ask for both), point
                         vars.REMOTE_BUILDER_API_URL and secrets.REMOTE_BUILDER_API_KEY at it unless given,
                         and use the fake docker (implies --fake-docker)
  --fake-docker          put the recording fake docker on PATH: builds are simulated
  --secret NAME=VALUE    secrets.NAME (repeatable); --secret NAME reads the value from the variable NAME
  --var NAME=VALUE       vars.NAME (repeatable)
  --env NAME=VALUE       a variable of the runner machine (repeatable)
  --inherit-env          pass every variable of this shell to the steps (default: only PATH and HOME)
  --debug                show ::debug:: lines
  --timeout MS           per-step time limit in milliseconds (default 600000)
  --node PATH            the node binary that runs the actions (default: this node)
  --work-dir DIR         keep the job's files in DIR (default: a temporary folder, removed after)
  -h, --help             show this help

buildx downloads are cached per source (GitHub, or each REMOTE_BUILDER_BUILDX_RELEASES_URL) under
$XDG_CACHE_HOME/remote-builder-actions/harness-tool-cache (default ~/.cache/…), given to the steps as
RUNNER_TOOL_CACHE. Nothing secret is printed: secrets, the api-key input and ::add-mask:: values show as ***.

Examples:
  ${RUN} job examples/build-push.yml --emulator --workspace examples/app
  ${RUN} job examples/configure-custom-step.yml --var REMOTE_BUILDER_API_URL=http://127.0.0.1:8080 \\
    --secret REMOTE_BUILDER_API_KEY=emulator-key --workspace examples/app`;

/** The commands the harness knows besides its default (an action): for "did you mean". */
export const HARNESS_COMMANDS = ['job', 'help'] as const;
