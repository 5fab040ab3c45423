/**
 * The line the harness prints about the caller's environment, so that a variable of this shell that the steps do
 * not see is never dropped without a word. By default a step gets PATH and HOME of this shell (runner-env.ts
 * CLEAN_BASE), the runner's variables and --env; --inherit-env passes everything.
 */

/** Variables a build or an action reads: named when this shell sets them and they are not passed. */
const NOTABLE = /^(REMOTE_BUILDER_|DOCKER_|BUILDX_|BUILDKIT_|NODE_EXTRA_CA_CERTS$|SSL_CERT_|(HTTPS?|NO|ALL)_PROXY$)/i;

/** What a step sees of this shell without --inherit-env (runner-env.ts CLEAN_BASE). */
const PASSED = new Set(['PATH', 'HOME']);

export interface CallerEnvNoticeOpts {
  /** This shell's variables. */
  parent: Readonly<Record<string, string | undefined>>;
  /** --inherit-env. */
  inherit: boolean;
  /** The variables given with --env (passed whatever inherit says). */
  given: Readonly<Record<string, string>>;
}

/** One line, naming (never showing) the variables this shell sets that a build would read and the steps do not see. */
export function callerEnvNotice(opts: CallerEnvNoticeOpts): string {
  if (opts.inherit) return 'Environment: the steps get every variable of this shell (--inherit-env), then --env.';
  const dropped = Object.keys(opts.parent).filter(
    name => opts.parent[name] !== undefined && !PASSED.has(name) && !(name in opts.given)
  );
  const notable = dropped.filter(name => NOTABLE.test(name)).sort();
  const named = notable.length > 0 ? `, among them ${notable.join(', ')}` : '';
  return (
    `Environment: the steps get PATH and HOME of this shell and --env; its ${dropped.length} other variable(s) are ` +
    `not passed${named} (as on a runner: pass one with --env NAME=value, all with --inherit-env).`
  );
}
