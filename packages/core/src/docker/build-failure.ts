/**
 * Classifies a failed `docker buildx build` / `docker buildx bake` from its output, so that only
 * infrastructure failures (the builder connection lost, a registry 5xx or a reset while pushing or
 * pulling) are retried, never the user's own (a RUN step's exit code, a Dockerfile error, a missing
 * file, denied credentials, an invalid option) and never what is not recognised.
 *
 * Which lines decide. buildx prints the error that ended the command once, as the last line
 * `ERROR: <wrapped error chain>` (cmd/buildx/main.go; `error: ` before buildx v0.9.0; since v0.25.0
 * the chain of `build` starts `failed to build: failed to solve: `, bake's may start `target <name>: `),
 * and each failed step as `#<n> ERROR: <error>` (buildkit util/progress/progressui/printer.go). Output
 * of RUN steps (`#<n> <seconds> <text>` and the `------` summary box with `<seconds> <text>` lines) and
 * the Dockerfile excerpt (`  3 | >>> RUN …`) are the user's programs talking and never decide, even if
 * they say "connection reset by peer".
 *
 * Precedence, highest first:
 *  1. A user error on any `ERROR:` line (the final one or a step's) makes the failure the user's: a retry
 *     cannot fix it, and with bake the final line may carry another target's error.
 *  2. Otherwise the final `ERROR:` line's class (infrastructure, or a recognised not-retried case).
 *  3. Otherwise the steps' `#<n> ERROR:` lines, last first.
 *  4. Only when buildx printed no `ERROR:` line at all (buildx < 0.5 printed the chain bare; flag errors
 *     are printed without a prefix), the remaining non-step lines, last first.
 *  5. Otherwise unknown.
 * Within one line the rules run in table order: a RUN step's exit code first (the quoted command is the
 * user's text and may contain anything), then cancellation, then the infrastructure rules (the deepest
 * cause wins over a wrapper: "failed to authorize: … i/o timeout" is a timeout), then the other user
 * rules, then the known not-retried cases.
 */

/** Infrastructure failures are retried; user errors and unknown ones are not. */
export type BuildFailureKind = 'infrastructure' | 'user' | 'unknown';

/** The class of a failed build and what decided it. */
export interface BuildFailureClass {
  kind: BuildFailureKind;
  /** Short human phrase, e.g. "the connection to the builder was lost (gRPC Unavailable)". */
  reason: string;
  /** The output line that decided it, when one did. */
  line?: string;
}

/** How many trailing lines of the output are read. */
export const BUILD_FAILURE_TAIL_LINES = 200;

/** Longer lines are cut in the middle; the head names the wrapper, the tail the cause. */
const MAX_LINE = 8192;

type Reason = string | ((m: RegExpExecArray, line: string) => string);

interface Rule {
  kind: BuildFailureKind;
  re: RegExp;
  reason: Reason;
}

/** Registry requests of a push / of a pull (the registry API lives under /v2/). */
const PUSH_RE =
  /failed to push|push access denied|blobs\/uploads|\b(?:PUT|POST|PATCH) request to \S+\/v2\/|\b(?:Put|Post|Patch) "?https?:\/\/\S+\/v2\//;
const PULL_RE =
  /failed to (?:copy|resolve source metadata|load cache key)|pull access denied|httpReadSeeker|\b(?:GET|HEAD) request to \S+\/v2\/|\b(?:Get|Head) "?https?:\/\/\S+\/v2\//;

/** ` while pushing` / ` while pulling` when the line says which. */
function phase(line: string): string {
  if (PUSH_RE.test(line)) return ' while pushing';
  if (PULL_RE.test(line)) return ' while pulling';
  return '';
}

// Every rule runs in time linear in the line (a build prints what it likes, up to MAX_LINE per line): a
// "prefix .* suffix" rule starts only at the prefix's first occurrence (`^(?:(?!prefix).)*prefix`; a later one
// cannot match where the first did not), and a run of characters is only entered at its start (lookbehind).
// prettier-ignore
const RULES: Rule[] = [
  // 1. A RUN step's exit code: the user's, whatever its command or output mention.
  {kind: 'user', re: /^(?:(?!process ").)*process ".*" did not complete successfully: exit code: (\d+)/, reason: m => `a RUN step failed with exit code ${m[1]}`},
  {kind: 'user', re: /^(?:(?!executor failed running \[).)*executor failed running \[.*\]: exit code: (\d+)/, reason: m => `a RUN step failed with exit code ${m[1]}`},
  // 2. Cancellation (the job was cancelled or buildx interrupted): nothing to retry.
  {kind: 'unknown', re: /\bcontext canceled\b|code = Canceled\b|\bCanceled: /, reason: 'the build was canceled'},
  // 3. The builder connection (gRPC to BuildKit, the buildx session).
  {kind: 'infrastructure', re: /received prior goaway|server is draining the connection|the connection is draining/, reason: 'the builder closed the connection (gRPC GOAWAY)'},
  {kind: 'infrastructure', re: /error reading from server: (?:unexpected )?EOF|error reading server preface/, reason: 'the connection to the builder was lost (error reading from server: EOF)'},
  {kind: 'infrastructure', re: /transport is closing/, reason: 'the connection to the builder was lost (transport is closing)'},
  {kind: 'infrastructure', re: /^(?:(?!transport: [Ee]rror while dialing).)*transport: [Ee]rror while dialing.*?(connection refused|no such host|i\/o timeout|connection reset by peer|network is unreachable)/, reason: m => `buildx could not connect to the builder (${m[1]})`},
  {kind: 'infrastructure', re: /transport: [Ee]rror while dialing/, reason: 'buildx could not connect to the builder'},
  {kind: 'infrastructure', re: /failed to dial gRPC/, reason: 'the buildx session with the builder could not be opened (failed to dial gRPC)'},
  {kind: 'infrastructure', re: /no active sessions?\b/, reason: 'the buildx session with the builder dropped (no active session)'},
  {kind: 'infrastructure', re: /^(?:(?!failed to bootstrap ).)*failed to bootstrap .* driver in attempts|make sure buildkitd is running/, reason: 'buildx could not reach the builder'},
  {kind: 'infrastructure', re: /code = Unavailable\b|(?:^|: )Unavailable: /, reason: 'the connection to the builder was lost (gRPC Unavailable)'},
  {kind: 'infrastructure', re: /code = DeadlineExceeded\b|(?:^|: )DeadlineExceeded: /, reason: 'the builder did not answer in time (gRPC DeadlineExceeded)'},
  {kind: 'infrastructure', re: /failed to (?:receive|get) status: /, reason: 'buildx lost the status stream of the build (failed to receive status)'},
  // buildx's remote driver waits 20 s for the builder and then fails with a bare deadline.
  {kind: 'infrastructure', re: /^(?:failed to build: )?(?:failed to solve: )?context deadline exceeded$/, reason: 'buildx gave up waiting for the builder (context deadline exceeded)'},
  // 4. The registry (or an ADD URL) while pushing or pulling.
  {kind: 'infrastructure', re: /\b(50[0234]) (Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out)\b/i, reason: (m, l) => `the registry answered HTTP ${m[1]} ${m[2]}${phase(l)}`},
  {kind: 'infrastructure', re: /invalid response status (50[0234])\b/, reason: m => `the server of an ADD URL answered HTTP ${m[1]}`},
  {kind: 'infrastructure', re: /http2: server sent GOAWAY|http2: client connection lost/, reason: (_m, l) => `the remote end closed the HTTP/2 connection (GOAWAY)${phase(l)}`},
  {kind: 'infrastructure', re: /connection reset by peer/, reason: (_m, l) => `the connection was reset${phase(l)} (connection reset by peer)`},
  {kind: 'infrastructure', re: /broken pipe/, reason: (_m, l) => `the connection broke${phase(l)} (broken pipe)`},
  {kind: 'infrastructure', re: /net\/http: TLS handshake timeout/, reason: (_m, l) => `the TLS handshake timed out${phase(l)}`},
  {kind: 'infrastructure', re: /net\/http: request canceled while waiting for connection|net\/http: timeout awaiting response headers|Client\.Timeout exceeded/, reason: (_m, l) => `the registry did not answer in time${phase(l)}`},
  {kind: 'infrastructure', re: /i\/o timeout|connection timed out/, reason: (_m, l) => `a network operation timed out${phase(l)} (i/o timeout)`},
  {kind: 'infrastructure', re: /^(?:(?!(?:failed to (?:copy|push|do request)|failed commit on ref|httpReadSeeker|blobs\/uploads)).)*(?:failed to (?:copy|push|do request)|failed commit on ref|httpReadSeeker|blobs\/uploads).*unexpected EOF|(?<!\S)(?=\S*?https?:\/\/)\S*"?: (?:unexpected )?EOF\b/, reason: (_m, l) => `the registry closed the connection${phase(l)} (unexpected EOF)`},
  // 5. The user's own: Dockerfile, build context, registry permissions, options, platforms, bake.
  {kind: 'user', re: /^(?:(?!failed to read dockerfile: open ).)*failed to read dockerfile: open .*no such file or directory/, reason: 'the Dockerfile was not found'},
  {kind: 'user', re: /dockerfile parse error|unknown instruction: |file with no instructions|the Dockerfile cannot be empty|failed to parse stage name|failed to read dockerfile/, reason: 'the Dockerfile is invalid'},
  {kind: 'user', re: /failed to calculate checksum of ref|^(?:(?!failed to compute cache key: ).)*failed to compute cache key: .*not found|^(?:(?!failed to walk ).)*failed to walk .*no such file or directory/, reason: 'a file the Dockerfile copies is missing from the build context'},
  {kind: 'user', re: /\b401 Unauthorized\b|\bunauthorized: |authentication required/, reason: (_m, l) => `the registry rejected the credentials${phase(l)} (401 Unauthorized)`},
  {kind: 'user', re: /(?:pull|push) access denied/, reason: (_m, l) => `the repository does not exist or the credentials may not use it${phase(l)} (access denied)`},
  {kind: 'user', re: /\b403 Forbidden\b|insufficient_scope|authorization failed|failed to authorize|requested access to the resource is denied|\bdenied: /, reason: (_m, l) => `the registry denied access${phase(l)} (403 Forbidden / insufficient scope)`},
  {kind: 'user', re: /no match for platform in manifest/, reason: 'the image has no variant for the requested platform'},
  {kind: 'user', re: /manifest unknown|name unknown|\b404 Not Found\b|invalid response status 404\b|(?<![\w.\-/])[\w.\-/]+:[\w.-]+: not found\b/, reason: 'an image, tag or URL does not exist (not found)'},
  {kind: 'user', re: /exec format error/, reason: 'a program for another CPU architecture was run (exec format error): the builder lacks that platform'},
  {kind: 'user', re: /invalid tag "|invalid reference format|unknown flag: |unknown shorthand flag: |invalid argument|failed to parse (?:target )?platform|invalid platform /, reason: 'an option of the build is invalid'},
  {kind: 'user', re: /\.hcl:\d+,\d+-\d+(?:,\d+)?: |could not find any target matching|failed to find target |couldn't find a bake definition|parsing yaml: |unknown key: |invalid override /, reason: 'the bake definition is invalid'},
  // 6. Recognised, but not retried.
  {kind: 'unknown', re: /toomanyrequests|429 Too Many Requests/, reason: 'the registry rate-limited the build (429 Too Many Requests); an immediate retry would hit the same limit'},
  {kind: 'unknown', re: /no space left on device/, reason: 'the builder ran out of disk space (no space left on device)'},
  {kind: 'unknown', re: /no such host|connection refused/, reason: (_m, l) => `a registry or URL could not be reached${phase(l)} (no such host / connection refused)`}
];

/** buildx's final error line; `Error: buildx failed with: ERROR: …` is how docker's actions echo it. */
const FINAL_RE = /^(?:.*\bfailed with: )?(?:ERROR|error): (.+)$/;
/** A failed step: `#12 ERROR: …`. */
const STEP_ERROR_RE = /^#\d+ ERROR: (.+)$/;
/** RUN output, the summary box and the Dockerfile excerpt, progress lines: never decisive. */
const NOT_BUILDX_RE = /^#\d+ |^\d+(?:\.\d+)? |^\s*\d+ \| |^ > |^-{6,}$|^\[\+\] |^ => /;
// eslint-disable-next-line no-control-regex
const ANSI_RE = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;
const TIMESTAMP_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z /;

interface Match {
  kind: BuildFailureKind;
  reason: string;
  line: string;
}

/**
 * Classifies the combined stdout+stderr of a failed `docker buildx build` / `bake` (only the last
 * BUILD_FAILURE_TAIL_LINES lines are read). Pure and synchronous.
 */
export function classifyBuildFailure(output: string): BuildFailureClass {
  const lines = tailLines(output, BUILD_FAILURE_TAIL_LINES);
  const finals: Match[] = [];
  const steps: Match[] = [];
  let sawErrorLine = false;
  for (const line of lines) {
    const step = STEP_ERROR_RE.exec(line);
    if (step) {
      sawErrorLine = true;
      const m = matchRules(step[1] as string, line);
      if (m) steps.push(m);
      continue;
    }
    if (NOT_BUILDX_RE.test(line)) continue;
    const fin = FINAL_RE.exec(line);
    if (fin) {
      sawErrorLine = true;
      const m = matchRules(stripTarget(fin[1] as string), line);
      if (m) finals.push(m);
    }
  }
  const user = lastOf(finals, 'user') ?? lastOf(steps, 'user');
  if (user) return withHint(user, lines);
  const decided = finals.at(-1) ?? steps.at(-1);
  if (decided) return result(decided);
  if (sawErrorLine) return {kind: 'unknown', reason: 'the error buildx printed is not a known infrastructure failure'};
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    if (line === '' || NOT_BUILDX_RE.test(line)) continue;
    const m = matchRules(line, line);
    if (m) return m.kind === 'user' ? withHint(m, lines) : result(m);
  }
  return {kind: 'unknown', reason: 'buildx printed no error line'};
}

function matchRules(message: string, line: string): Match | undefined {
  for (const rule of RULES) {
    const m = rule.re.exec(message);
    if (!m) continue;
    const reason = typeof rule.reason === 'string' ? rule.reason : rule.reason(m, message);
    return {kind: rule.kind, reason, line};
  }
  return undefined;
}

/** Drops bake's `target <name>: ` prefix so anchored rules see the error chain. */
function stripTarget(message: string): string {
  return message.replace(/^target [^:\s]+: /, '');
}

function lastOf(matches: Match[], kind: BuildFailureKind): Match | undefined {
  for (let i = matches.length - 1; i >= 0; i--) if (matches[i]?.kind === kind) return matches[i];
  return undefined;
}

/** A RUN step that died of `exec format error` ran a binary the builder's architecture cannot run. */
function withHint(m: Match, lines: string[]): BuildFailureClass {
  if (m.reason.startsWith('a RUN step failed') && lines.some(l => l.includes('exec format error'))) {
    return result({...m, reason: `${m.reason} (exec format error: the builder lacks that platform)`});
  }
  return result(m);
}

function result(m: Match): BuildFailureClass {
  return {kind: m.kind, reason: m.reason, line: m.line};
}

/** The last `count` lines, without ANSI colours, CRs or GitHub log timestamps; long lines clipped. */
function tailLines(output: string, count: number): string[] {
  let start = output.length;
  for (let n = 0; n <= count && start > 0; n++) start = output.lastIndexOf('\n', start - 1);
  const lines = output.slice(Math.max(start + 1, 0)).split(/\r\n|\r|\n/);
  const out: string[] = [];
  for (const raw of lines.slice(-count)) {
    let line = raw.replace(ANSI_RE, '').replace(TIMESTAMP_RE, '').trimEnd();
    if (line.length > MAX_LINE) line = `${line.slice(0, MAX_LINE / 2)}…${line.slice(-MAX_LINE / 2)}`;
    out.push(line);
  }
  return out;
}
