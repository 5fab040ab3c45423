import {type BuilderSize, PRICE_TABLE} from './price-table.js';

/**
 * Which row of the price table a builder is. The spec shows no size field on any response ("not shown"), so
 * the size comes from an action input or from whatever field a service answers with; either way we never
 * guess: a size is known only when what we read matches exactly one row of the table, and anything
 * unreadable or contradictory makes it unknown (and the report then says "size unknown" instead of a cost).
 */

/** What a text or a response says about a machine. */
interface SizeFacts {
  vcpu?: number;
  memoryGb?: number;
  diskGb?: number;
}

/**
 * The row these facts describe. The vCPU count is required: it is different on every row, so it picks the
 * row; RAM and disk, when given, must agree with that row. Memory alone is not enough: "64 GB" could be
 * read as RAM or as disk, and we do not guess which.
 */
function matchRow(f: SizeFacts): BuilderSize | undefined {
  if (f.vcpu === undefined) return undefined;
  const rows = PRICE_TABLE.filter(
    r =>
      r.vcpu === f.vcpu &&
      (f.memoryGb === undefined || r.memoryGb === f.memoryGb) &&
      (f.diskGb === undefined || r.diskGb === f.diskGb)
  );
  return rows.length === 1 ? rows[0]?.size : undefined;
}

const NXM = /^(\d+)\s*x\s*(\d+)$/i;
// One "<number> <unit> [ram|disk]" part: vCPU, or GB of RAM (the default for GB) or of disk.
const PART = /(\d+)\s*(vcpus?|cpus?|cores?|gib|gb|g)(?:\s*(ram|memory|mem|disk|storage))?(?![a-z])/gi;
const SEPARATORS = /^[\s,;/+-]*$/;

/**
 * Parses a builder size written by a person (an action input). Accepted, case-insensitive:
 * - `<vCPU>x<GB RAM>`, the table's key: `16x32`, `32x64`, …;
 * - parts `<n> vCPU` (also `cpu`, `cores`), `<n> GB` (RAM; `GB RAM`, `GB memory`, `GiB` too) and `<n> GB disk`,
 *   in any order, separated by spaces, commas, `-`, `/` or `+`: `32 vCPU`, `32vcpu-64gb`,
 *   `32 vCPU, 64 GB RAM, 200 GB disk` (the spec's own wording).
 * The vCPU count is required. Returns the size only when it matches exactly one row of the table.
 */
export function parseBuilderSize(text: string): BuilderSize | undefined {
  const s = text.trim();
  const nxm = NXM.exec(s);
  if (nxm) return matchRow({vcpu: Number(nxm[1]), memoryGb: Number(nxm[2])});
  const facts: SizeFacts = {};
  let rest = s;
  for (const m of s.matchAll(PART)) {
    const n = Number(m[1]);
    const unit = (m[2] ?? '').toLowerCase();
    const what = (m[3] ?? '').toLowerCase();
    const key: keyof SizeFacts = /^(vcpu|cpu|core)/.test(unit)
      ? 'vcpu'
      : what === 'disk' || what === 'storage'
        ? 'diskGb'
        : 'memoryGb';
    if (key === 'vcpu' && what !== '') return undefined; // "32 vCPU RAM"
    if (facts[key] !== undefined) return undefined; // said twice
    facts[key] = n;
    rest = rest.replace(m[0], ' ');
  }
  if (!SEPARATORS.test(rest)) return undefined; // words we do not understand
  return matchRow(facts);
}

/** Keys under which a response may name the size, e.g. `"size": "32x64"`. */
export const SIZE_KEYS = ['size', 'builder_size', 'machine_size', 'instance_size'] as const;
/** Keys that may hold the vCPU count (not `cpu`: services put CPU models there, e.g. "x86_64"). */
export const VCPU_KEYS = ['vcpu', 'vcpus', 'cpus'] as const;
/** Keys that may hold the RAM, in GB (a number) or as text with a unit ("64 GB"). */
export const MEMORY_KEYS = ['memory_gb', 'ram_gb', 'memory', 'ram'] as const;
/** Keys that may hold the disk size, in GB. */
export const DISK_KEYS = ['disk_gb'] as const;
/** Sub-objects searched as well (one level): the details' `metadata`, and where services often put machines. */
export const NESTED_KEYS = ['metadata', 'resources', 'machine', 'spec'] as const;

type Fields = Record<string, unknown>;

function isObject(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// What one key says: a size, `null` for "says something we cannot match to one row", undefined for nothing.
type Fact = BuilderSize | null;

function positiveInt(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** A GB amount: a number (GB), "64", "64GB", "64 GiB". */
function gigabytes(v: unknown): number | undefined {
  const n = positiveInt(v);
  if (n !== undefined) return n;
  const m = typeof v === 'string' ? /^\s*(\d+)\s*(gb|gib|g)\s*$/i.exec(v) : null;
  return m ? Number(m[1]) : undefined;
}

function first(fields: Fields, keys: readonly string[]): unknown {
  const key = keys.find(k => fields[k] !== undefined && fields[k] !== null);
  return key === undefined ? undefined : fields[key];
}

function factsOf(fields: Fields, depth: number, out: Fact[]): void {
  for (const key of SIZE_KEYS) {
    const v = fields[key];
    if (v === undefined || v === null) continue;
    if (typeof v === 'string') out.push(parseBuilderSize(v) ?? null);
    else if (isObject(v) && depth > 0) factsOf(v, depth - 1, out);
    else out.push(null); // e.g. "size": 32: vCPU? GB? We do not guess.
  }
  const cpu = first(fields, VCPU_KEYS);
  const memory = first(fields, MEMORY_KEYS);
  const disk = first(fields, DISK_KEYS);
  if (cpu !== undefined) {
    const vcpu = typeof cpu === 'string' && !/^\s*\d+\s*$/.test(cpu) ? parseVcpuText(cpu) : positiveInt(cpu);
    const memoryGb = memory === undefined ? undefined : gigabytes(memory);
    const diskGb = disk === undefined ? undefined : gigabytes(disk);
    const unreadable = (memory !== undefined && memoryGb === undefined) || (disk !== undefined && diskGb === undefined);
    out.push(vcpu === undefined || unreadable ? null : (matchRow({vcpu, memoryGb, diskGb}) ?? null));
  }
  if (depth > 0) {
    for (const key of NESTED_KEYS) {
      const v = fields[key];
      if (isObject(v)) factsOf(v, depth - 1, out);
    }
  }
}

function parseVcpuText(text: string): number | undefined {
  const m = /^\s*(\d+)\s*(vcpus?|cpus?|cores?)\s*$/i.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * Reads a builder's size from whatever the API answered: the details object, the assignment's entry for the
 * builder, the profile entry (the emulator's profile listing has `size`). Looks at SIZE_KEYS (text in a form
 * parseBuilderSize accepts, or an object with the fields below), at VCPU_KEYS with MEMORY_KEYS and
 * DISK_KEYS, and in the NESTED_KEYS sub-objects. Every source and key that says something must agree on one
 * row: an unreadable or contradicting value (`"size": "large"`, 8 vCPU, 32 vCPU with 128 GB) makes the
 * size unknown rather than a guess.
 */
export function readBuilderSize(...sources: ReadonlyArray<Fields | undefined>): BuilderSize | undefined {
  const facts: Fact[] = [];
  for (const source of sources) if (isObject(source)) factsOf(source, 2, facts);
  if (facts.length === 0 || facts.includes(null)) return undefined;
  const [size] = facts;
  return facts.every(f => f === size) ? (size ?? undefined) : undefined;
}
