import {goJson, GoNumber, type GoValue} from './go-json.js';

/**
 * The trace of a build record as buildx puts it into the bundle (util/desktop/bundle/trace.go): each span of
 * BuildKit's OTLP JSON stream decoded and written again with a two-space indent and a newline, the string
 * values of its `Attributes` cleared of credentials (sanitizeCommand). Key order and number literals are kept
 * as BuildKit wrote them (the same Go struct wrote them, so buildx writes them back unchanged).
 */
export function sanitizeTrace(trace: Buffer): Buffer {
  const out: string[] = [];
  for (const value of parseJsonStream(trace.toString('utf8'))) {
    if (!(value instanceof Map)) throw new Error('the trace holds a value that is not a span');
    const span = asSpan(value);
    const attributes = span.get('Attributes');
    if (Array.isArray(attributes)) {
      for (const kv of attributes) {
        const v = kv instanceof Map ? kv.get('Value') : undefined;
        if (!(v instanceof Map) || v.get('Type') !== 'STRING') continue;
        const text = v.get('Value');
        if (typeof text === 'string') v.set('Value', sanitizeCommand(text));
      }
    }
    out.push(goJson(span, '  '), '\n');
  }
  return Buffer.from(out.join(''));
}

type GoObject = Map<string, GoValue>;

/**
 * A span as buildx's otelutil.Span writes it back: its fields in the struct's order, a missing one as its zero
 * value, the fields it does not have (InstrumentationScope, which newer BuildKits add) left out, the span
 * contexts without TraceState (buildx drops it) and the scope's attributes empty (buildx does not read them).
 */
function asSpan(s: GoObject): GoObject {
  const context = (v: GoValue | undefined): GoObject =>
    struct(v, [
      ['TraceID', ''],
      ['SpanID', ''],
      ['TraceFlags', ''],
      ['TraceState', ''],
      ['Remote', false]
    ]).set('TraceState', '');
  const list = (v: GoValue | undefined, item: (x: GoValue) => GoValue): GoValue =>
    Array.isArray(v) ? v.map(item) : null;
  const span = struct(s, [
    ['Name', ''],
    ['SpanContext', null],
    ['Parent', null],
    ['SpanKind', 0],
    ['StartTime', ZERO_TIME],
    ['EndTime', ZERO_TIME],
    ['Attributes', null],
    ['Events', null],
    ['Links', null],
    ['Status', null],
    ['DroppedAttributes', 0],
    ['DroppedEvents', 0],
    ['DroppedLinks', 0],
    ['ChildSpanCount', 0],
    ['Resource', null],
    ['InstrumentationLibrary', null]
  ]);
  span.set('SpanContext', context(s.get('SpanContext')));
  span.set('Parent', context(s.get('Parent')));
  span.set(
    'Events',
    list(s.get('Events'), e =>
      struct(e, [
        ['Name', ''],
        ['Attributes', null],
        ['DroppedAttributeCount', 0],
        ['Time', ZERO_TIME]
      ])
    )
  );
  span.set(
    'Links',
    list(s.get('Links'), l =>
      struct(l, [
        ['SpanContext', null],
        ['Attributes', null],
        ['DroppedAttributeCount', 0]
      ]).set('SpanContext', context(l instanceof Map ? l.get('SpanContext') : undefined))
    )
  );
  span.set(
    'Status',
    struct(s.get('Status'), [
      ['Code', 0],
      ['Description', '']
    ])
  );
  span.set(
    'InstrumentationLibrary',
    struct(s.get('InstrumentationLibrary'), [
      ['Name', ''],
      ['Version', ''],
      ['SchemaURL', '']
    ]).set('Attributes', new Map())
  );
  return span;
}

/** Go's time.Time zero value as encoding/json writes it. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

/** The fields of `v` named in `fields`, in that order, each defaulting to its zero value. */
function struct(v: GoValue | undefined, fields: [string, GoValue][]): GoObject {
  const from = v instanceof Map ? v : new Map<string, GoValue>();
  return new Map(fields.map(([key, zero]) => [key, from.has(key) ? from.get(key)! : zero]));
}

const SENSITIVE_ATTRS = /(ghtoken|token|access_key_id|secret_access_key|session_token)=[^ ,]+/gi;
const GITHUB_TOKENS = /(?:ghu|ghs)_[A-Za-z0-9]{36}/g;
const GITHUB_PATS = /github_pat_\w{82}/g;

/** buildx's sanitizeCommand: `token=…`-like values and GitHub tokens in a span's attribute become `xxxxx`. */
export function sanitizeCommand(value: string): string {
  return value.replace(SENSITIVE_ATTRS, '$1=xxxxx').replace(GITHUB_TOKENS, 'xxxxx').replace(GITHUB_PATS, 'xxxxx');
}

/** The JSON values of a stream (values one after another, white space between), objects as ordered Maps. */
export function parseJsonStream(text: string): GoValue[] {
  const p = {text, at: 0};
  const values: GoValue[] = [];
  for (skipSpace(p); p.at < text.length; skipSpace(p)) values.push(parseValue(p));
  return values;
}

interface Cursor {
  text: string;
  at: number;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// eslint-disable-next-line no-control-regex -- JSON's control characters are what it names
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

function parseValue(p: Cursor): GoValue {
  skipSpace(p);
  const c = p.text[p.at];
  if (c === '{') {
    p.at++;
    const o = new Map<string, GoValue>();
    skipSpace(p);
    if (p.text[p.at] === '}') {
      p.at++;
      return o;
    }
    for (;;) {
      skipSpace(p);
      const key = parseString(p);
      skipSpace(p);
      expect(p, ':');
      o.set(key, parseValue(p));
      skipSpace(p);
      if (p.text[p.at] === ',') p.at++;
      else return (expect(p, '}'), o);
    }
  }
  if (c === '[') {
    p.at++;
    const a: GoValue[] = [];
    skipSpace(p);
    if (p.text[p.at] === ']') {
      p.at++;
      return a;
    }
    for (;;) {
      a.push(parseValue(p));
      skipSpace(p);
      if (p.text[p.at] === ',') p.at++;
      else return (expect(p, ']'), a);
    }
  }
  if (c === '"') return parseString(p);
  for (const [word, value] of [
    ['true', true],
    ['false', false],
    ['null', null]
  ] as const) {
    if (p.text.startsWith(word, p.at)) {
      p.at += word.length;
      return value;
    }
  }
  NUMBER.lastIndex = p.at;
  const m = NUMBER.exec(p.text);
  if (!m) throw new Error(`not JSON at offset ${p.at} of the trace`);
  p.at += m[0].length;
  return new GoNumber(m[0]);
}

function parseString(p: Cursor): string {
  STRING.lastIndex = p.at;
  const m = STRING.exec(p.text);
  if (!m) throw new Error(`not a JSON string at offset ${p.at} of the trace`);
  p.at += m[0].length;
  return JSON.parse(m[0]) as string;
}

function expect(p: Cursor, c: string): void {
  if (p.text[p.at] !== c) throw new Error(`expected "${c}" at offset ${p.at} of the trace`);
  p.at++;
}

function skipSpace(p: Cursor): void {
  while (p.at < p.text.length && ' \t\n\r'.includes(p.text[p.at]!)) p.at++;
}
