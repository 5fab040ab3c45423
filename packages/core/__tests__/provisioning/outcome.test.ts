import {expect, test} from '@jest/globals';
import {CancelledError} from '../../src/lifecycle/cancelled-error.js';
import {BuilderTimeoutError, explainTimeout} from '../../src/lifecycle/readiness.js';
import {BuildAttemptsError} from '../../src/provisioning/build-attempts.js';
import {failedOutcome} from '../../src/provisioning/outcome.js';

const aborted = (): AbortSignal => {
  const c = new AbortController();
  c.abort();
  return c.signal;
};
const timeout = new BuilderTimeoutError('b1', 'Builder b1 was not ready');

// prettier-ignore
test.each([
  [1, 'a timeout', timeout, undefined, 'timeout'],
  // The run's replacement of a lost builder: explained by Provisioner.provision, as the first assignment is.
  [2, 'a timeout explained with the setting to raise', explainTimeout(timeout, 300, 'timeout'), undefined, 'timeout'],
  [3, 'a timeout under the build attempts', new BuildAttemptsError('gave up', 2, {kind: 'infrastructure', reason: 'x'}, {cause: explainTimeout(timeout, 300, 'timeout')}), undefined, 'timeout'],
  [4, 'a cancellation', new CancelledError('Cancelled by SIGINT'), undefined, 'cancelled'],
  [5, 'any error once the signal is aborted', timeout, aborted(), 'cancelled'],
  [6, 'anything else', new Error('buildx failed'), undefined, 'failure'],
  [7, 'not an Error', 'boom', undefined, 'failure']
])('[%d] %s', (_n, _title, error, signal, outcome) => {
  expect(failedOutcome(error, signal)).toBe(outcome);
});
