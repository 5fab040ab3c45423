/**
 * Runs a bundled action's main step (and with --post its post step) like the runner, then prints a report;
 * or, with `job`, one job of a workflow file (an example as it is), then its job summary as text.
 *
 *   npx tsx packages/emulator/src/harness/cli.ts --action dist/configure \
 *     --input profile-name=x --input timeout=1000 [--env K=V] [--post] [--timeout MS] [--inherit-env] [--node PATH]
 *   npx tsx packages/emulator/src/harness/cli.ts job examples/build-push.yml [--job image] \
 *     [--secret NAME[=VALUE]]... [--var NAME=VALUE]... [--env K=V]... [--workspace DIR] [--emulator] [--fake-docker]
 *
 * Ctrl-C cancels the running step as a cancelled run would (SIGINT, SIGTERM after 7.5 s, SIGKILL after 2.5 s
 * more); post still runs, as with `post-if: always()`. A second Ctrl-C kills the job at once, post included, as
 * the server does when a cancelled job overruns its 5 minutes.
 *
 * A bad command line (an unknown command or option, a missing value) is refused in the CLI's words, with the
 * closest command or option when there is one; `--help` (and `job --help`) list every option (cli-help.ts).
 *
 * Nothing secret is printed: the `api-key` input, every `secrets.*` and every `::add-mask::` value (and each
 * line of it) is shown as `***` in every encoding LogMasker knows; `::add-mask::` lines are not shown.
 */
import {exitAfterOutput} from '../exit-after-output.js';
import {runHarnessCli} from './harness-cli.js';

runHarnessCli({argv: process.argv.slice(2)}).then(exitAfterOutput);
