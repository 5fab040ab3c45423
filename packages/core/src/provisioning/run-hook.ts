import type {ActionIO} from '../adapters/action-io.js';
import {errorMessage} from '../errors.js';
import {CancelledError} from '../lifecycle/cancelled-error.js';
import {proxySecrets} from '../net/proxy-secrets.js';
import {claimPostState} from './post-state-keys.js';

export interface RunHookOpts {
  /** Where signals come from; default `process`. */
  signals?: Pick<NodeJS.Process, 'on' | 'off'>;
  /** Ends the process once the step is done (dangling keep-alive sockets must not hold it); default process.exit. */
  exit?: (code: number) => void;
}

/**
 * Runs one hook of an action. main: first writes every key post reads (claimPostState), then SIGINT/SIGTERM abort the signal handed to `fn`, which tears down
 * what it assigned and rejects; any error fails the step with its message. post: signals are noted but
 * do not stop the cleanup, and errors only warn, so post never fails the job.
 */
export async function runHook(
  io: ActionIO,
  hook: 'main' | 'post',
  fn: (signal: AbortSignal) => Promise<unknown>,
  opts: RunHookOpts = {}
): Promise<void> {
  const signals = opts.signals ?? process;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    if (hook === 'post') {
      io.logger.info(`Received ${sig}: finishing the cleanup first so nothing stays billed`);
      return;
    }
    if (controller.signal.aborted) return;
    io.logger.info(`Received ${sig}: cancelling and tearing down what is assigned`);
    controller.abort(new CancelledError(`Cancelled by ${sig}`));
  };
  signals.on('SIGINT', onSignal);
  signals.on('SIGTERM', onSignal);
  let code = 0;
  try {
    // docker and buildx get the proxy variables, and may print them: their passwords are masked first.
    for (const secret of proxySecrets(io.env)) io.logger.setSecret(secret);
    if (hook === 'main') claimPostState(io.state);
    await fn(controller.signal);
  } catch (e) {
    if (hook === 'post') {
      io.logger.warning(`post step failed: ${errorMessage(e)}`);
    } else {
      code = 1;
      io.setFailed(errorMessage(e));
    }
  } finally {
    signals.off('SIGINT', onSignal);
    signals.off('SIGTERM', onSignal);
  }
  exit(code);
}
