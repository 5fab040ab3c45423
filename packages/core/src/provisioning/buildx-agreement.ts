import type {Buildx} from '../buildx/buildx.js';
import {BuildxError} from '../buildx/buildx-error.js';
import {BuilderNodesDownError} from '../buildx/nodes-down.js';
import {errorMessage} from '../errors.js';
import type {ReadyBuilder} from '../lifecycle/readiness.js';

/**
 * How long buildx may take to boot every node when asked after a failed build. buildx's own dial gives up
 * after ~20 s on a node it cannot reach (its "context deadline exceeded"); past this bound we say so.
 */
export const AGREEMENT_TIMEOUT_MS = 25_000;

/** buildx cannot use a node that readiness proved ready over mutual TLS: retrying the build would not help. */
export class BuildxDisagreesError extends Error {
  constructor(
    message: string,
    /** buildx's nodes it could not use (empty when it could not load the builder at all). */
    readonly nodes: string[]
  ) {
    super(message);
    this.name = 'BuildxDisagreesError';
  }
}

export interface BuildxAgreementOpts {
  buildx: Pick<Buildx, 'bootstrap'>;
  /** The buildx builder the build ran on. */
  builder: string;
  /** The builders readiness proved (their endpoints are named in the message). */
  ready: Pick<ReadyBuilder, 'id' | 'endpoint'>[];
  signal?: AbortSignal;
  /** Default AGREEMENT_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * After a build failed as if the builder were unreachable while our own check still finds every builder
 * ready, asks buildx itself (`buildx inspect --bootstrap`): undefined when buildx can use every node (the
 * failure was passing: a retry may help), else the error that says which node, what buildx said, and what to
 * check. Readiness proves a builder with Node's TLS (its `Control/Info` call, or a probe), and buildx dials
 * with Go's and its own route: Go refuses a server certificate that names its host only in the CN (Node
 * accepts it), and buildx honours the proxy variables, which our check may not share.
 */
export async function buildxDisagreement(opts: BuildxAgreementOpts): Promise<BuildxDisagreesError | undefined> {
  const timeoutMs = opts.timeoutMs ?? AGREEMENT_TIMEOUT_MS;
  let said: string;
  let nodes: string[] = [];
  try {
    await opts.buildx.bootstrap(opts.builder, {timeoutMs, ...(opts.signal ? {signal: opts.signal} : {})});
    return undefined;
  } catch (e) {
    if (opts.signal?.aborted) throw e;
    if (e instanceof BuilderNodesDownError) {
      said = e.detail;
      nodes = e.nodes;
    } else if (e instanceof BuildxError) {
      said = errorMessage(e).replace(/^Failed to bootstrap buildx builder "[^"]*": /, '');
    } else {
      throw e;
    }
  }
  const proved = opts.ready.map(b => `${b.id} at ${b.endpoint.hostname}:${b.endpoint.port}`).join(', ');
  return new BuildxDisagreesError(
    `buildx cannot use builder "${opts.builder}" although its BuildKit answered our mutual-TLS check (${proved}): buildx says ${said}. ` +
      `buildx dials with Go's TLS and its own route, so check that each builder's server certificate names its host in a subjectAltName (Go ignores the CN), ` +
      `that the "servername" matches it, and that HTTPS_PROXY/NO_PROXY let buildx reach the host; the build was not retried, as it would fail the same way`,
    nodes
  );
}
