/** The artifact service's calls a fault can target: the Twirp methods and the blob requests. */
export enum ArtifactCall {
  CreateArtifact = 'CreateArtifact',
  FinalizeArtifact = 'FinalizeArtifact',
  ListArtifacts = 'ListArtifacts',
  GetSignedArtifactURL = 'GetSignedArtifactURL',
  /** Put Block (`?comp=block`). */
  PutBlock = 'PutBlock',
  /** Put Block List (`?comp=blocklist`). */
  PutBlockList = 'PutBlockList',
  /** Put Blob (one request, no `comp`). */
  PutBlob = 'PutBlob',
  GetBlob = 'GetBlob'
}

/**
 * A fault of the artifact service: the next `times` matching calls are answered with `status` instead (a Twirp
 * error for the Twirp methods, an Azure XML error for the blob requests), or with `action: 'reset'` their
 * connection is destroyed. Legal behaviours of the real service, and what @actions/artifact does with them:
 * Twirp 429/500/502/503/504 and resets are retried (5 attempts, 3 s then ×1.5 backoff); other 4xx fail at
 * once (`msg` containing "insufficient usage" is the storage-quota error). Blob 5xx and resets are retried by
 * @azure/storage-blob (4 s backoff); a 403 (an expired or refused signature) fails the upload at once.
 */
export interface ArtifactFaultRule {
  call: ArtifactCall;
  /** Default 503. */
  status?: number;
  /** The Twirp `msg` or the blob error's message; default names the fault. */
  msg?: string;
  action?: 'respond' | 'reset';
  /** How many calls the rule applies to; default 1. */
  times?: number;
}

/** ArtifactFaults holds the rules; each call takes the first rule for it, which counts down and then goes away. */
export class ArtifactFaults {
  readonly #rules: (ArtifactFaultRule & {left: number})[] = [];

  add(rule: ArtifactFaultRule): void {
    if (!(Object.values(ArtifactCall) as string[]).includes(rule.call)) {
      throw new Error(
        `Unknown artifact call ${JSON.stringify(rule.call)}: one of ${Object.values(ArtifactCall).join(', ')}`
      );
    }
    const status = rule.status ?? 503;
    if (!Number.isInteger(status) || status < 400 || status > 599)
      throw new Error(`Fault status ${status} is not an error status`);
    if (rule.action !== undefined && rule.action !== 'respond' && rule.action !== 'reset') {
      throw new Error(`Fault action ${JSON.stringify(rule.action)} is not "respond" or "reset"`);
    }
    if (rule.msg !== undefined && typeof rule.msg !== 'string') throw new Error('Fault msg must be a string');
    const times = rule.times ?? 1;
    if (!Number.isInteger(times) || times < 1) throw new Error(`Fault times ${times} is not a positive integer`);
    this.#rules.push({...rule, status, left: times});
  }

  /** The rule for this call, counted as used; undefined when none applies. */
  take(call: ArtifactCall): ArtifactFaultRule | undefined {
    const at = this.#rules.findIndex(r => r.call === call);
    if (at < 0) return undefined;
    const rule = this.#rules[at] as ArtifactFaultRule & {left: number};
    rule.left -= 1;
    if (rule.left === 0) this.#rules.splice(at, 1);
    return rule;
  }

  clear(): void {
    this.#rules.length = 0;
  }
}
