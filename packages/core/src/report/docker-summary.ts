import type {BakeDefinitionText} from './bake-definition-file.js';
import {buildInputsYaml, type BuildInputs} from './build-inputs.js';
import {mdCodeBlock, mdTable, mdText} from './markdown.js';
import type {BuildRecordEntry, BuildRecordReport, RunRecord} from './run-record.js';
import {byteLength, countLines, cutText, formatBytes, shareBudget} from './summary-size.js';
import {formatDuration} from './time-format.js';

/** What post adds to the run record for docker's sections (none of it goes through the step state). */
export interface DockerSummaryOpts {
  /** `<server>/<owner>/<repo>/actions/runs/<id>`: the record's artifact page is under it. */
  runUrl?: string;
  /** The step's inputs, secret values reduced to their keys (readSummaryInputs). */
  inputs?: BuildInputs;
  /** bake: the definition main left for post (readBakeDefinition). */
  bakeDefinition?: BakeDefinitionText;
}

/** docker collapses a build error of more lines than this. */
export const ERROR_COLLAPSE_LINES = 10;

/** Builds listed in the table; the rest are counted (a bake of hundreds of targets, retried). */
export const TABLE_ROW_CAP = 100;

/** Export warnings listed; the rest are counted. */
const WARNING_CAP = 10;

/** Room each long part needs besides its text: the details tags, the fence, the note of a cut. */
const PART_OVERHEAD_BYTES = 1024;

/** A build name longer than this is cut in the table. */
const NAME_CAP = 200;

const STATUS: Readonly<Record<string, string>> = {completed: '✅', canceled: '🚫', cancelled: '🚫'};

function code(s: string): string {
  return `\`${s.replace(/`/g, "'")}\``;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A link target with nothing that could end the markdown link or start another. */
function safeUrl(url: string): string {
  return url.replace(/[\s()<>[\]"'`\\]/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** Lines as a blockquote (docker puts the build error in one). */
function quote(lines: readonly string[]): string[] {
  return lines.map(l => (l === '' ? '>' : `> ${l}`));
}

/** `<details>` around markdown (blank lines around it, so GitHub renders the markdown inside). */
function details(title: string, body: readonly string[]): string[] {
  return [`<details><summary><strong>${title}</strong></summary>`, '', ...body, '', '</details>'];
}

/** The record: its link (or why there is none), what could not be exported. */
function recordSection(record: BuildRecordReport | undefined, runUrl: string | undefined): string[] {
  if (!record) return ['No build record: the step ended before one was exported.'];
  if (record.skipped !== undefined || record.fileName === undefined) {
    return [`No build record: ${mdText(record.skipped ?? 'none was exported')}.`];
  }
  const out: string[] = [];
  const n = record.entries.length;
  const size = record.sizeBytes !== undefined ? `${formatBytes(record.sizeBytes)} · ` : '';
  const what = `(${size}includes **${plural(n, 'build record')}**)`;
  const upload = record.upload;
  const id = upload?.artifactId;
  if (id !== undefined && runUrl !== undefined) {
    out.push(
      "For a detailed look at the build (timing, dependencies, results, logs and traces), download the build record and import it into Docker Desktop's Builds view:",
      '',
      `⬇️ [**${mdText(record.fileName)}**](${safeUrl(`${runUrl}/artifacts/${id}`)}) ${what}`
    );
  } else {
    const why =
      upload?.skipped ?? (upload?.error !== undefined ? `the upload failed: ${upload.error}` : 'it was not uploaded');
    out.push(`The build record ${code(record.fileName)} ${what} is not attached to this run: ${mdText(why)}.`);
  }
  const warnings = record.warnings.slice(0, WARNING_CAP).map(w => `- ⚠️ ${mdText(w)}`);
  const more = record.warnings.length - WARNING_CAP;
  if (warnings.length > 0) {
    out.push('', ...warnings, ...(more > 0 ? [`- … and ${more} more`] : []));
  }
  return out;
}

function cachedPercent(e: BuildRecordEntry): string {
  const cached = e.numCachedSteps ?? 0;
  const total = e.numTotalSteps ?? 0;
  return `${cached > 0 && total > 0 ? Math.round((cached / total) * 100) : 0}%`;
}

function entryRow(e: BuildRecordEntry): string[] {
  const name = e.name ?? '';
  const shown = name.length > NAME_CAP ? `${name.slice(0, NAME_CAP)}…` : name;
  const status = e.status ?? 'unknown';
  return [
    code(e.ref.slice(0, 6).toUpperCase()),
    shown !== '' ? `**${mdText(shown)}**` : '',
    `${STATUS[status] ?? '❌'} ${mdText(status)}`,
    cachedPercent(e),
    e.durationMs !== undefined ? formatDuration(e.durationMs) : '—'
  ];
}

/** docker's table: one row per build of the step (ID, Name, Status, Cached, Duration). */
function tableSection(entries: readonly BuildRecordEntry[]): string[] {
  if (entries.length === 0) return [];
  const out = mdTable(['ID', 'Name', 'Status', 'Cached', 'Duration'], entries.slice(0, TABLE_ROW_CAP).map(entryRow));
  const more = entries.length - TABLE_ROW_CAP;
  if (more > 0) out.push('', `… and ${plural(more, 'more build')} (all of them are in the build record).`);
  return out;
}

/** A long part of the summary: its text, its code block's language, and where the whole of it can be read. */
interface LongPart {
  text: string;
  lang: string;
  /** Bytes an earlier reader already left out. */
  unread: number;
  /** "The whole error is in the step's log". */
  whole: string;
  /** Bytes each line gains where it is shown (the error's quote: `> `). */
  perLine: number;
}

/** What a part takes in the summary: its bytes and what its lines gain. */
function partCost(part: LongPart, text = part.text): number {
  return byteLength(text) + (part.perLine > 0 ? part.perLine * countLines(text) : 0);
}

/** The part's code block, cut to `maxBytes` (partCost) with a note saying what was left out and where the rest is. */
function longBlock(part: LongPart, maxBytes: number): string[] {
  let head = cutText(part.text, maxBytes).text;
  // The lines' gain counts too: cut the head again by what is over, until it fits.
  for (let over = partCost(part, head) - maxBytes; head !== '' && over > 0; over = partCost(part, head) - maxBytes) {
    head = cutText(head, byteLength(head) - over).text;
  }
  const out = mdCodeBlock(head.split('\n'), part.lang);
  const cutBytes = byteLength(part.text) - byteLength(head) + part.unread;
  if (cutBytes > 0) {
    // A line cut inside counts as left out.
    const midLine = head.length < part.text.length && part.text[head.length] !== '\n' ? 1 : 0;
    const cutLines = head.length < part.text.length ? countLines(part.text) - countLines(head) + midLine : 0;
    const lines = cutLines > 0 && part.unread === 0 ? ` (${plural(cutLines, 'line')})` : '';
    out.push(
      '',
      `_Cut: the last ${formatBytes(cutBytes)}${lines} are not shown, to keep the job summary under GitHub's 1,024 KiB limit. ${part.whole}._`
    );
  }
  return out;
}

/** The error of the last failed build, as docker shows it: in a quote, collapsed when over 10 lines. */
function errorSection(part: LongPart, maxBytes: number): string[] {
  const block = longBlock(part, maxBytes);
  const long = countLines(part.text) > ERROR_COLLAPSE_LINES;
  return quote(long ? details('Error', block) : ['**Error**', '', ...block]);
}

/**
 * docker's "Docker Build summary" sections of a build step, in docker's order: the build record (a link to its
 * artifact, or why there is none), the table of builds, the error of the last failed build, the build inputs
 * and bake's definition (both collapsed). The error, the inputs and the definition share `budgetBytes` (see
 * shareBudget): what does not fit is cut with a note. Everything from a build or a user's file is data: table
 * cells are escaped, long text goes in fenced blocks no line of it can close.
 */
export function renderDockerSummary(r: RunRecord, opts: DockerSummaryOpts, budgetBytes: number): string[] {
  const entries = r.buildRecord?.entries ?? [];
  const out = ['## Docker Build summary', '', ...recordSection(r.buildRecord, opts.runUrl)];
  const table = tableSection(entries);
  if (table.length > 0) out.push('', ...table);

  const failed = [...entries].reverse().find(e => e.error !== undefined && e.error.trim() !== '');
  const error: LongPart | undefined = failed?.error
    ? {text: failed.error.trimEnd(), lang: 'text', unread: 0, whole: "The whole error is in the step's log", perLine: 2}
    : undefined;
  const inputs: LongPart | undefined =
    opts.inputs && Object.keys(opts.inputs).length > 0
      ? {
          text: buildInputsYaml(opts.inputs),
          lang: 'yaml',
          unread: 0,
          whole: "The inputs are in the workflow's file",
          perLine: 0
        }
      : undefined;
  const definition: LongPart | undefined = opts.bakeDefinition
    ? {
        text: opts.bakeDefinition.text.trimEnd(),
        lang: 'json',
        unread: opts.bakeDefinition.unreadBytes,
        whole: 'The whole definition is in the step\'s log ("Bake definition" group)',
        perLine: 0
      }
    : undefined;
  const parts = [error, inputs, definition];
  const shares = shareBudget(
    parts.map(p => (p ? partCost(p) : 0)),
    budgetBytes - byteLength(out.join('\n')) - PART_OVERHEAD_BYTES * parts.length
  );
  if (error) out.push('', ...errorSection(error, shares[0] ?? 0));
  if (inputs) out.push('', ...details('Build inputs', longBlock(inputs, shares[1] ?? 0)));
  if (definition) out.push('', ...details('Bake definition', longBlock(definition, shares[2] ?? 0)));
  return out;
}
