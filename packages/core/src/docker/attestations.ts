import {parseCsv} from './csv.js';
import {parseDockerBool} from './input-list.js';
import {yamlBoolean} from '../yaml-boolean.js';

/**
 * The `provenance` input as docker's Build.getProvenanceInput reads it: '' stays '', a YAML boolean
 * becomes `builder-id=<run url>` (true) or 'false', anything else gets a builder-id unless it has one.
 */
export function resolveProvenanceInput(raw: string, workflowRunUrl: string): string {
  if (raw === '') return '';
  const bool = yamlBoolean(raw);
  if (bool === true) return `builder-id=${workflowRunUrl}`;
  if (bool === false) return 'false';
  return resolveProvenanceAttrs(raw, workflowRunUrl);
}

/** Adds `builder-id=<run url>` to provenance attributes that have none (docker's resolveProvenanceAttrs). */
export function resolveProvenanceAttrs(input: string, workflowRunUrl: string): string {
  if (input === '') return `builder-id=${workflowRunUrl}`;
  const fields = parseCsvLenient(input, {})[0] ?? [];
  for (const field of fields) {
    const eq = field.indexOf('=', 1);
    const key = (eq > 0 ? field.slice(0, eq) : field).trim();
    if (key === 'builder-id') return input;
  }
  return `${input},builder-id=${workflowRunUrl}`;
}

/** Rewrites boolean attributes as `disabled=<!value>` (buildx's attests shorthand; resolveAttestationAttrs). */
export function resolveAttestationAttrs(attrs: string): string {
  const out: string[] = [];
  for (const record of parseCsvLenient(attrs, {trim: true})) {
    for (const attr of record) {
      try {
        out.push(`disabled=${!parseDockerBool(attr)}`);
      } catch {
        out.push(attr);
      }
    }
  }
  return out.join(',');
}

/** True when the attestation attributes carry `type=<name>`. */
export function hasAttestationType(name: string, attrs: string): boolean {
  return hasKeyValue(parseCsvLenient(attrs, {trim: true}), 'type', name);
}

/** True when one of the exporters (`outputs` entries) is of that type; a bare path means `local`. */
export function hasExporterType(name: string, exporters: string[]): boolean {
  for (const record of parseCsvLenient(exporters.join('\n'), {trim: true})) {
    // https://github.com/docker/buildx/blob/d2bf42f8b4784d83fde17acb3ed84703ddc2156b/build/output.go#L29-L43
    if (record.length === 1 && !(record[0] as string).startsWith('type=')) return name === 'local';
    if (hasKeyValue([record], 'type', name)) return true;
  }
  return false;
}

export function hasLocalExporter(exporters: string[]): boolean {
  return hasExporterType('local', exporters);
}

export function hasTarExporter(exporters: string[]): boolean {
  return hasExporterType('tar', exporters);
}

/** `load: true`, or an output of type docker. */
export function hasDockerExporter(exporters: string[], load: boolean): boolean {
  return load || hasExporterType('docker', exporters);
}

function hasKeyValue(records: string[][], key: string, value: string): boolean {
  return records.some(record =>
    record.some(chunk => {
      const [k, v] = chunk.split('=').map(s => s.trim());
      return k === key && v === value;
    })
  );
}

/** docker parses these strictly and would throw on a stray quote; we fall back to the relaxed reading. */
function parseCsvLenient(text: string, opts: {trim?: boolean}): string[][] {
  try {
    return parseCsv(text, opts);
  } catch {
    return parseCsv(text, {...opts, relaxQuotes: true, quote: false});
  }
}
