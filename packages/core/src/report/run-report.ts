import {describeSize} from '../billing/price-table.js';
import {billedMinutes} from '../billing/cost.js';
import {isWarm, type StepCounts} from '../docker/cache-report.js';
import {billBuilder, type Bound, type BuilderBill, totalBill} from './builder-bill.js';
import {mdCodeBlock, mdTable, mdText} from './markdown.js';
import {
  EarlyPhase,
  type AttemptOutcome,
  type AttemptRecord,
  type BuilderRecord,
  type RunRecord,
  type RunResult,
  type RunTiming
} from './run-record.js';
import {formatClock, formatDateTime, formatDuration} from './time-format.js';

const OUTCOME: Readonly<Record<RunRecord['outcome'], string>> = {
  success: '✅ **Succeeded**',
  failure: '❌ **Failed**',
  cancelled: '🚫 **Cancelled**',
  timeout: '⏱️ **Timed out**'
};

const ATTEMPT: Readonly<Record<AttemptOutcome, string>> = {
  success: 'succeeded',
  infrastructure: 'infrastructure failure',
  user: 'build failed (an error of the build itself)',
  unknown: 'failed (cause unknown)',
  cancelled: 'cancelled',
  timeout: 'timed out'
};

/** What to do after a failure before anything was assigned, by phase. */
const EARLY_FIX: Readonly<Record<EarlyPhase, string>> = {
  [EarlyPhase.Inputs]: "Fix the input the error names (the step's `with:`), then re-run the job.",
  [EarlyPhase.BuildxInstall]:
    'Fix `buildx-version` (a release such as `0.31.1`, or `latest`) or what the error says kept it from being installed, or leave it empty to use the buildx of the runner; then re-run the job.',
  [EarlyPhase.LocalChecks]:
    "Fix what the error names on the runner (docker, buildx) or in the build's own files (the Dockerfile, the bake file), then re-run the job."
};

/** A line of an error or a reason longer than this is cut (one line of a minified file must not fill the summary). */
const LINE_CAP = 2000;

function capLine(line: string): string {
  return line.length > LINE_CAP ? `${line.slice(0, LINE_CAP)}… (${line.length - LINE_CAP} more characters)` : line;
}

function isEarlyPhase(phase: string | undefined): phase is EarlyPhase {
  return (Object.values(EarlyPhase) as string[]).includes(phase ?? '');
}

const BOUND: Readonly<Record<Bound, string>> = {exact: '', 'at-most': '≤ ', 'at-least': '≥ ', about: '≈ '};

/** "0.1820 USD" */
function usd(amount: number): string {
  return `${amount.toFixed(4)} USD`;
}

/** A number with at most `digits` decimals, trailing zeros dropped: 3.0333, 3.5, 3. */
function num(n: number, digits: number): string {
  return String(Number(n.toFixed(digits)));
}

function percent(c: StepCounts): string {
  return `${Math.round(c.ratio * 100)}%`;
}

function code(s: string): string {
  return `\`${s.replace(/`/g, "'")}\``;
}

function builderRow(b: BuilderRecord, bill: BuilderBill): string[] {
  const arch = b.arch !== undefined && b.arch !== '' ? mdText(b.arch) : 'unknown';
  const torn =
    bill.teardown === 'torn-down' && b.tornDownAt !== undefined
      ? formatClock(b.tornDownAt)
      : bill.teardown === 'already-gone'
        ? `already gone${b.tornDownAt !== undefined ? ` (${formatClock(b.tornDownAt)})` : ''}`
        : bill.teardown === 'failed'
          ? '⚠️ **teardown failed**'
          : '⚠️ **not torn down**';
  const billed = `${BOUND[bill.bound]}${formatDuration(bill.billedMs)}${bill.stillBilled ? ', **still billed**' : ''}`;
  const cost = bill.cost !== undefined ? `${BOUND[bill.bound]}${usd(bill.cost)}` : (bill.unknownCost ?? '');
  return [
    code(b.id),
    mdText(b.profile),
    `${arch}${b.multiArch === true ? ' (multi-arch)' : ''}`,
    b.size ?? 'unknown',
    b.readyAt !== undefined ? formatDuration(b.readyAt - b.assignedAt) : 'not ready',
    b.buildMs !== undefined ? formatDuration(b.buildMs) : '—',
    torn,
    billed,
    cost
  ];
}

function stillBilledWarning(b: BuilderRecord, bill: BuilderBill): string {
  const why = bill.teardown === 'failed' ? 'its teardown failed' : 'it was not torn down';
  return (
    `> 🚨 **Builder ${code(b.id)} may still be billed**: ${why}. A builder is billed until it is terminated; ` +
    `tear it down in the service's web UI (builders of profile "${mdText(b.profile)}"). ` +
    `Billed so far: ≥ ${formatDuration(bill.billedMs)}.`
  );
}

function builderSection(r: RunRecord, bills: BuilderBill[]): string[] {
  if (r.builders.length === 0) return ['No builder was assigned: nothing was billed.'];
  const out = mdTable(
    ['Builder', 'Profile', 'Arch', 'Size', 'Ready after', 'Build time', 'Torn down', 'Billed', 'Cost'],
    r.builders.map((b, i) => builderRow(b, bills[i] as BuilderBill))
  );
  const total = totalBill(bills);
  const prefix = BOUND[total.bound];
  const cost =
    total.cost !== undefined
      ? `${prefix}${usd(total.cost)}`
      : `unknown (${total.unknown.map(u => `${code(u.id)}: ${u.why}`).join(', ')})`;
  out.push(
    '',
    `**Total billed:** ${prefix}${num(total.billedMinutes, 2)} min (${formatDuration(total.billedMs)}) · **Total cost:** ${cost}`
  );
  const priced = r.builders.flatMap((b, i) => {
    const bill = bills[i] as BuilderBill;
    if (bill.cost === undefined || bill.usdPerMinute === undefined || b.size === undefined) return [];
    const kind = b.multiArch ? 'multi-architecture, twice the price' : 'single-architecture';
    return [
      `- ${code(b.id)}: ${num(bill.usdPerMinute, 4)} USD/min (${b.size}: ${describeSize(b.size)}; ${kind}) × ` +
        `${BOUND[bill.bound]}${num(billedMinutes(bill.billedMs), 4)} min = ${BOUND[bill.bound]}${usd(bill.cost)}`
    ];
  });
  if (priced.length > 0) {
    out.push(
      '',
      'Cost = price per minute of the builder size (service price table) × billed minutes (assignment → teardown). ' +
        'The service does not say how a part of a minute is charged: fractional minutes are counted as they are.',
      '',
      ...priced
    );
  }
  if (bills.some(b => b.bound === 'at-most')) {
    out.push('', '≤: the builder was already gone when it was torn down, so its billing stopped earlier.');
  }
  return out;
}

/** "setup 12.3 s · build and push 45.0 s": the parts that were measured. */
function timeLine(t: RunTiming): string | undefined {
  const parts = [
    ...(t.setupMs !== undefined ? [`setup ${formatDuration(t.setupMs)}`] : []),
    ...(t.buildMs !== undefined ? [`build and push ${formatDuration(t.buildMs)}`] : [])
  ];
  return parts.length > 0 ? `**Time:** ${parts.join(' · ')}` : undefined;
}

/** A digest as it is (plain text, so a "(simulated)" label added after it reads naturally). */
function digestText(d: string | undefined): string {
  return d !== undefined && d !== '' ? mdText(d) : 'none';
}

/** What the build produced: the image's digest, id and tags, or each bake target with its platforms and digest. */
function resultSection(r: RunResult): string[] {
  const out: string[] = [];
  if (r.image) {
    const {digest, imageId, tags, moreTags} = r.image;
    const more = moreTags ? ` and ${moreTags} more` : '';
    out.push(
      `- **Digest:** ${digest ? digestText(digest) : 'none (no image pushed or loaded)'}`,
      ...(imageId ? [`- **Image ID:** ${digestText(imageId)}`] : []),
      `- **Tags:** ${tags.length > 0 ? `${tags.map(code).join(', ')}${more}` : 'none'}`
    );
  }
  if (r.targets) {
    if (out.length > 0) out.push('');
    out.push(
      ...mdTable(
        ['Target', 'Platforms', 'Digest'],
        r.targets.map(t => [
          code(t.name),
          t.platforms.length > 0 ? mdText(t.platforms.join(', ')) : "builder's default",
          digestText(t.digest)
        ])
      )
    );
    if (r.moreTargets) out.push('', `… and ${r.moreTargets} more target${r.moreTargets === 1 ? '' : 's'}.`);
  }
  if (r.builder !== undefined) {
    if (out.length > 0) out.push('');
    out.push(
      r.fallback !== undefined
        ? `Local fallback builder ${code(r.builder)} (docker-container, on this runner): ${mdText(r.fallback)}.`
        : `buildx builder ${code(r.builder)}.`
    );
  }
  return out;
}

function attemptLine(a: AttemptRecord): string {
  const on = a.builderIds.length > 0 ? ` on ${a.builderIds.map(code).join(', ')}` : '';
  const reason = a.reason ? `: ${mdText(capLine(a.reason))}` : '';
  const build = a.buildMs !== undefined ? ` (build ${formatDuration(a.buildMs)})` : '';
  return `${a.n}. **${ATTEMPT[a.outcome]}**${on}${reason}${build}`;
}

function cacheSection(attempts: readonly AttemptRecord[]): string[] {
  if (!attempts.some(a => a.cache)) {
    return ['Not reported: the build output showed no build step (buildx prints them with plain progress).'];
  }
  const out: string[] = [];
  for (const a of attempts) {
    const label = attempts.length > 1 ? `Attempt ${a.n}: ` : '';
    if (!a.cache) {
      out.push(`- ${label}not reported`);
      continue;
    }
    const c = a.cache;
    out.push(
      `- ${label}${c.steps} build step${c.steps === 1 ? '' : 's'}, ${c.cached} from the cache (${percent(c)}): ` +
        `**${isWarm(c) ? 'warm' : 'cold'}** builder`
    );
    for (const [target, t] of Object.entries(c.targets ?? {})) {
      out.push(`  - target ${code(target)}: ${t.steps} steps, ${t.cached} cached (${percent(t)})`);
    }
  }
  out.push('', '_A builder counts as warm when at least one build step came from its cache, cold otherwise._');
  return out;
}

/**
 * Renders the one job summary block of an action step as GitHub-flavoured markdown: the outcome, setup time
 * apart from build and push time, a loud warning for every builder that may still be billed, what the build
 * produced (digest and tags, or each bake target), a table of the builders with what each was billed and cost, the
 * totals, the attempts and why, the cache report and, for a failure, the failing phase and the last lines
 * of the error. Pure: the same record always renders the same text.
 */
export function renderRunReport(r: RunRecord): string {
  const bills = r.builders.map(b => billBuilder(b, r.endedAt));
  const phase = r.phase && r.outcome !== 'success' ? ` in phase ${code(r.phase)}` : '';
  const tries = r.attempts.length > 1 ? ` after ${r.attempts.length} attempts` : '';
  const out: string[] = [
    `### Remote builders: ${r.action}`,
    '',
    `${OUTCOME[r.outcome]}${phase}${tries} · ended ${formatDateTime(r.endedAt)}`
  ];
  const time = r.timing ? timeLine(r.timing) : undefined;
  if (time !== undefined) out.push('', time);
  const warnings = r.builders.flatMap((b, i) => {
    const bill = bills[i] as BuilderBill;
    return bill.stillBilled ? [stillBilledWarning(b, bill)] : [];
  });
  if (warnings.length > 0) out.push('', ...warnings.flatMap((w, i) => (i === 0 ? [w] : ['>', w])));
  // Failed before anything was assigned: a short block (what failed, the error, what to do).
  const early = r.outcome !== 'success' && r.builders.length === 0 && r.attempts.length === 0 && isEarlyPhase(r.phase);
  if (early) out.push('', `Nothing was assigned: **nothing was billed**. ${EARLY_FIX[r.phase as EarlyPhase]}`);
  const result = r.result ? resultSection(r.result) : [];
  if (result.length > 0) out.push('', '#### Result', '', ...result);
  if (!early) out.push('', '#### Builders', '', ...builderSection(r, bills));
  if (r.attempts.length > 0) {
    out.push('', '#### Attempts', '', ...r.attempts.map(attemptLine));
    if (r.action !== 'configure') out.push('', '#### Cache', '', ...cacheSection(r.attempts));
  }
  if (r.outcome !== 'success' && r.errorTail && r.errorTail.length > 0) {
    out.push('', `#### Error${phase}`, '', ...mdCodeBlock(r.errorTail.map(capLine)));
  }
  return `${out.join('\n')}\n`;
}
