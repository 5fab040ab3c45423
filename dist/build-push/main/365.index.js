export const id = 365;
export const ids = [365,683];
export const modules = {

/***/ 2365:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  NoRecordError: () => (/* binding */ NoRecordError),
  exportRecordsGrpc: () => (/* binding */ exportRecordsGrpc)
});

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
;// CONCATENATED MODULE: ./packages/core/src/record/go-json.ts
/** A JSON number literal kept as it was read (Go re-encodes integers and the floats it wrote the same). */
class GoNumber {
    literal;
    constructor(literal) {
        this.literal = literal;
    }
}
/** `json.Marshal` (no indent) or `json.MarshalIndent(v, "", indent)`. */
function goJson(value, indent = '') {
    const out = [];
    write(value, indent, '', out);
    return out.join('');
}
function write(v, indent, at, out) {
    if (v === null)
        out.push('null');
    else if (typeof v === 'boolean')
        out.push(v ? 'true' : 'false');
    else if (typeof v === 'number')
        out.push(Number.isFinite(v) ? String(v) : 'null');
    else if (typeof v === 'bigint')
        out.push(v.toString());
    else if (typeof v === 'string')
        out.push(goString(v));
    else if (v instanceof GoNumber)
        out.push(v.literal);
    else if (v instanceof Uint8Array)
        out.push(`"${Buffer.from(v).toString('base64')}"`);
    else if (Array.isArray(v)) {
        if (v.length === 0)
            return void out.push('[]');
        const inner = at + indent;
        out.push('[');
        v.forEach((item, i) => {
            if (i > 0)
                out.push(',');
            if (indent)
                out.push('\n', inner);
            write(item, indent, inner, out);
        });
        if (indent)
            out.push('\n', at);
        out.push(']');
    }
    else {
        if (v.size === 0)
            return void out.push('{}');
        const inner = at + indent;
        out.push('{');
        let first = true;
        for (const [key, item] of v) {
            if (!first)
                out.push(',');
            first = false;
            if (indent)
                out.push('\n', inner);
            out.push(goString(key), indent ? ': ' : ':');
            write(item, indent, inner, out);
        }
        if (indent)
            out.push('\n', at);
        out.push('}');
    }
}
const SHORT_ESCAPES = {
    '"': '\\"',
    '\\': '\\\\',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\b': '\\b',
    '\f': '\\f'
};
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** A string as Go quotes it (HTML-safe, as json.Marshal's default; lone surrogates become U+FFFD). */
function goString(s) {
    const safe = s.replace(LONE_SURROGATE, '\ufffd');
    // eslint-disable-next-line no-control-regex -- JSON's control characters are what it names
    return `"${safe.replace(/["\\\u0000-\u001f<>&\u2028\u2029]/g, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}
/** A Go map[string]V as encoding/json orders it: keys sorted by their bytes. */
function goMap(entries, value) {
    const sorted = [...entries].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return new Map(sorted.map(([k, v]) => [k, value(v)]));
}

// EXTERNAL MODULE: external "node:tls"
var external_node_tls_ = __webpack_require__(41692);
// EXTERNAL MODULE: ./node_modules/@bufbuild/protobuf/dist/esm/wire/binary-encoding.js + 3 modules
var binary_encoding = __webpack_require__(59799);
// EXTERNAL MODULE: ./packages/core/src/net/grpc-call.ts
var grpc_call = __webpack_require__(72342);
// EXTERNAL MODULE: ./packages/core/src/lifecycle/tls-probe.ts + 2 modules
var tls_probe = __webpack_require__(20687);
// EXTERNAL MODULE: ./packages/core/src/record/record-bundle.ts
var record_bundle = __webpack_require__(61683);
;// CONCATENATED MODULE: ./packages/core/src/record/history-record.ts

/** BuildHistoryEventType: STARTED 0, COMPLETE 1, DELETED 2. */
const HistoryEventType = { Started: 0, Complete: 1, Deleted: 2 };
/** One BuildHistoryEvent: field 1 `type` (enum), field 2 `record`. */
function decodeHistoryEvent(bytes) {
    const event = { type: HistoryEventType.Started };
    fields(bytes, (field, r, wire) => {
        if (field === 1 && wire === binary_encoding/* WireType */.O0.Varint)
            event.type = r.int32();
        else if (field === 2 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            event.record = decodeRecord(r.bytes());
        else
            return false;
        return true;
    });
    return event;
}
function decodeRecord(bytes) {
    const rec = {
        ref: '',
        frontend: '',
        frontendAttrs: [],
        exporters: [],
        exporterResponse: [],
        results: [],
        generation: 0,
        pinned: false,
        numCachedSteps: 0,
        numTotalSteps: 0,
        numCompletedSteps: 0,
        numWarnings: 0
    };
    fields(bytes, (field, r, wire) => {
        if (wire === binary_encoding/* WireType */.O0.LengthDelimited) {
            if (field === 1)
                rec.ref = r.string();
            else if (field === 2)
                rec.frontend = r.string();
            else if (field === 3)
                rec.frontendAttrs.push(stringEntry(r.bytes()));
            else if (field === 4)
                rec.exporters.push(decodeExporter(r.bytes()));
            else if (field === 5)
                rec.error = decodeStatus(r.bytes());
            else if (field === 6)
                rec.createdAt = decodeTimestamp(r.bytes());
            else if (field === 7)
                rec.completedAt = decodeTimestamp(r.bytes());
            else if (field === 8)
                rec.logs = decodeDescriptor(r.bytes());
            else if (field === 9)
                rec.exporterResponse.push(stringEntry(r.bytes()));
            else if (field === 10)
                rec.result = decodeResult(r.bytes());
            else if (field === 11)
                rec.results.push(resultEntry(r.bytes()));
            else if (field === 13)
                rec.trace = decodeDescriptor(r.bytes());
            else if (field === 18)
                rec.externalError = decodeDescriptor(r.bytes());
            else
                return false;
        }
        else if (wire === binary_encoding/* WireType */.O0.Varint) {
            if (field === 12)
                rec.generation = r.int32();
            else if (field === 14)
                rec.pinned = r.bool();
            else if (field === 15)
                rec.numCachedSteps = r.int32();
            else if (field === 16)
                rec.numTotalSteps = r.int32();
            else if (field === 17)
                rec.numCompletedSteps = r.int32();
            else if (field === 19)
                rec.numWarnings = r.int32();
            else
                return false;
        }
        else
            return false;
        return true;
    });
    return rec;
}
function decodeDescriptor(bytes) {
    const d = { mediaType: '', digest: '', size: 0n, annotations: [] };
    fields(bytes, (field, r, wire) => {
        if (field === 1 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            d.mediaType = r.string();
        else if (field === 2 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            d.digest = r.string();
        else if (field === 3 && wire === binary_encoding/* WireType */.O0.Varint)
            d.size = BigInt(r.int64());
        else if (field === 5 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            d.annotations.push(stringEntry(r.bytes()));
        else
            return false;
        return true;
    });
    return d;
}
function decodeResult(bytes) {
    const res = { attestations: [], results: [] };
    fields(bytes, (field, r, wire) => {
        if (wire !== binary_encoding/* WireType */.O0.LengthDelimited)
            return false;
        if (field === 1)
            res.resultDeprecated = decodeDescriptor(r.bytes());
        else if (field === 2)
            res.attestations.push(decodeDescriptor(r.bytes()));
        else if (field === 3) {
            let key = 0n;
            let value = { mediaType: '', digest: '', size: 0n, annotations: [] };
            fields(r.bytes(), (f, e, w) => {
                if (f === 1 && w === binary_encoding/* WireType */.O0.Varint)
                    key = BigInt(e.int64());
                else if (f === 2 && w === binary_encoding/* WireType */.O0.LengthDelimited)
                    value = decodeDescriptor(e.bytes());
                else
                    return false;
                return true;
            });
            res.results.push([key, value]);
        }
        else
            return false;
        return true;
    });
    return res;
}
function resultEntry(bytes) {
    let key = '';
    let value = { attestations: [], results: [] };
    fields(bytes, (field, r, wire) => {
        if (field === 1 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            key = r.string();
        else if (field === 2 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            value = decodeResult(r.bytes());
        else
            return false;
        return true;
    });
    return [key, value];
}
function decodeExporter(bytes) {
    const e = { type: '', attrs: [] };
    fields(bytes, (field, r, wire) => {
        if (field === 1 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            e.type = r.string();
        else if (field === 2 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            e.attrs.push(stringEntry(r.bytes()));
        else
            return false;
        return true;
    });
    return e;
}
/** google.rpc.Status: 1 code, 2 message, 3 details (google.protobuf.Any: 1 type_url, 2 value). */
function decodeStatus(bytes) {
    const s = { code: 0, message: '', details: [] };
    fields(bytes, (field, r, wire) => {
        if (field === 1 && wire === binary_encoding/* WireType */.O0.Varint)
            s.code = r.int32();
        else if (field === 2 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            s.message = r.string();
        else if (field === 3 && wire === binary_encoding/* WireType */.O0.LengthDelimited) {
            const any = { typeUrl: '', value: new Uint8Array() };
            fields(r.bytes(), (f, a, w) => {
                if (f === 1 && w === binary_encoding/* WireType */.O0.LengthDelimited)
                    any.typeUrl = a.string();
                else if (f === 2 && w === binary_encoding/* WireType */.O0.LengthDelimited)
                    any.value = a.bytes().slice();
                else
                    return false;
                return true;
            });
            s.details.push(any);
        }
        else
            return false;
        return true;
    });
    return s;
}
/** google.protobuf.Timestamp: 1 seconds (int64), 2 nanos (int32). */
function decodeTimestamp(bytes) {
    const t = { seconds: 0n, nanos: 0 };
    fields(bytes, (field, r, wire) => {
        if (field === 1 && wire === binary_encoding/* WireType */.O0.Varint)
            t.seconds = BigInt(r.int64());
        else if (field === 2 && wire === binary_encoding/* WireType */.O0.Varint)
            t.nanos = r.int32();
        else
            return false;
        return true;
    });
    return t;
}
/** A map<string, string> entry: 1 key, 2 value. */
function stringEntry(bytes) {
    let key = '';
    let value = '';
    fields(bytes, (field, r, wire) => {
        if (field === 1 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            key = r.string();
        else if (field === 2 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            value = r.string();
        else
            return false;
        return true;
    });
    return [key, value];
}
/** Reads each field of a message; `read` consumes the value and returns true, or false to have it skipped. */
function fields(bytes, read) {
    const r = new binary_encoding/* BinaryReader */.V5(bytes);
    while (r.pos < r.len) {
        const [field, wire] = r.tag();
        if (!read(field, r, wire))
            r.skip(wire, field);
    }
}

;// CONCATENATED MODULE: ./packages/core/src/record/buildkit-history.ts






const LISTEN_HISTORY = '/moby.buildkit.v1.Control/ListenBuildHistory';
const UPDATE_HISTORY = '/moby.buildkit.v1.Control/UpdateBuildHistory';
/** containerd's content service, which BuildKit serves beside Control (what buildx's bundle export reads). */
const READ_CONTENT = '/containerd.services.content.v1.Content/Read';
/** The most a history answer may hold: one build's records are KBs. */
const MAX_HISTORY_BYTES = 16 * 1024 * 1024;
/** The most one blob may be (as the bundle reader's bound). */
const MAX_BLOB_BYTES = 512 * 1024 * 1024;
/** An HTTP/2 session to the node's BuildKit over mutual TLS, as readiness's Control/Info reaches it. */
async function openNodeSession(node) {
    const { connect } = await Promise.resolve(/* import() */).then(__webpack_require__.t.bind(__webpack_require__, 32467, 23));
    const session = connect(`https://${node.hostname}:${node.port}`, {
        createConnection: () => (0,external_node_tls_.connect)((0,tls_probe/* builderTlsOptions */.zp)(node))
    });
    // Errors reach the calls through their streams; this keeps a late one from going unhandled.
    session.on('error', () => undefined);
    return session;
}
/**
 * The three BuildKit calls `buildx history export` makes, over one session to one node: the records of a
 * ref (ListenBuildHistory with EarlyExit), the finalize of one (UpdateBuildHistory: BuildKit writes its
 * trace now), and a blob of the history's content store (containerd's Content/Read).
 */
class BuildkitHistory {
    #session;
    #signal;
    constructor(opts) {
        this.#session = opts.session;
        this.#signal = opts.signal;
    }
    /** The completed records of `ref` on this node (none when it has none). */
    async records(ref) {
        // BuildHistoryRequest: 2 Ref, 3 EarlyExit (send what exists now, then end).
        const request = refWithFlag(ref, 2, 3);
        const messages = await (0,grpc_call/* grpcCall */.FA)(this.#session, {
            path: LISTEN_HISTORY,
            request,
            signal: this.#signal,
            maxBytes: MAX_HISTORY_BYTES
        });
        return messages
            .map(decodeHistoryEvent)
            .filter(e => e.type === HistoryEventType.Complete && e.record?.ref === ref)
            .map(e => e.record);
    }
    /** Asks BuildKit to finalize the record of `ref` (write its trace), as `history export --finalize` does. */
    async finalize(ref) {
        // UpdateBuildHistoryRequest: 1 Ref, 4 Finalize.
        const request = refWithFlag(ref, 1, 4);
        await (0,grpc_call/* grpcCall */.FA)(this.#session, { path: UPDATE_HISTORY, request, signal: this.#signal, maxBytes: 64 * 1024 });
    }
    /** The blob `d`, whole and checked against its digest and size. */
    async blob(d) {
        if (!/^sha256:[0-9a-f]{64}$/.test(d.digest))
            throw new Error(`the record names a blob "${d.digest}" that is not a sha256 digest`);
        if (d.size > BigInt(MAX_BLOB_BYTES))
            throw new Error(`blob ${d.digest} is larger than ${MAX_BLOB_BYTES} bytes`);
        const size = Number(d.size);
        // ReadContentRequest: 1 digest (offset 0 and size 0: all of it).
        const request = new binary_encoding/* BinaryWriter */.fI().tag(1, binary_encoding/* WireType */.O0.LengthDelimited).string(d.digest).finish();
        const messages = await (0,grpc_call/* grpcCall */.FA)(this.#session, {
            path: READ_CONTENT,
            request,
            signal: this.#signal,
            maxBytes: size + 64 * 1024 + 1024
        });
        const data = Buffer.alloc(size);
        let filled = 0;
        for (const m of messages) {
            const { offset, chunk } = readContentResponse(m);
            if (offset < 0 || offset + chunk.length > size)
                throw new Error(`blob ${d.digest} is larger than its ${size} bytes`);
            data.set(chunk, offset);
            filled += chunk.length;
        }
        if (filled !== size || (0,record_bundle.sha256)(data) !== d.digest) {
            throw new Error(`blob ${d.digest} did not arrive whole (${filled} of ${size} bytes, or another digest)`);
        }
        return data;
    }
}
/** A request of a ref (string field `refField`) and one flag set (bool field `flagField`). */
function refWithFlag(ref, refField, flagField) {
    return new binary_encoding/* BinaryWriter */.fI()
        .tag(refField, binary_encoding/* WireType */.O0.LengthDelimited)
        .string(ref)
        .tag(flagField, binary_encoding/* WireType */.O0.Varint)
        .bool(true)
        .finish();
}
/** ReadContentResponse: 1 offset (int64), 2 data; other fields skipped. */
function readContentResponse(bytes) {
    const r = new binary_encoding/* BinaryReader */.V5(bytes);
    let offset = 0;
    let chunk = new Uint8Array();
    while (r.pos < r.len) {
        const [field, wire] = r.tag();
        if (field === 1 && wire === binary_encoding/* WireType */.O0.Varint)
            offset = Number(r.int64());
        else if (field === 2 && wire === binary_encoding/* WireType */.O0.LengthDelimited)
            chunk = r.bytes();
        else
            r.skip(wire, field);
    }
    return { offset, chunk };
}

;// CONCATENATED MODULE: ./packages/core/src/record/history-record-json.ts

/**
 * The history record as buildx's `history export` writes it into the bundle (util/desktop/bundle: Record, Go's
 * encoding/json of the generated BuildHistoryRecord with buildx's fields after it): the protobuf struct's JSON
 * names and order (some capitalised, some not, as the generated tags say), empty fields left out, maps sorted,
 * and the `cache-imports` frontend attribute sanitised as buildx does (only `scope` and `ref` kept).
 */
function historyRecordJson(rec, extras) {
    const o = new Map();
    const put = (key, value) => {
        if (value !== undefined)
            o.set(key, value);
    };
    put('Ref', rec.ref || undefined);
    put('Frontend', rec.frontend || undefined);
    put('FrontendAttrs', stringMap(rec.frontendAttrs.map(([k, v]) => [k, k === 'cache-imports' ? sanitizeCacheImports(v) : v])));
    put('Exporters', rec.exporters.length === 0
        ? undefined
        : rec.exporters.map(e => {
            const x = new Map();
            if (e.type)
                x.set('Type', e.type);
            const attrs = stringMap(e.attrs);
            if (attrs)
                x.set('Attrs', attrs);
            return x;
        }));
    if (rec.error) {
        const s = new Map();
        if (rec.error.code)
            s.set('code', rec.error.code);
        if (rec.error.message)
            s.set('message', rec.error.message);
        if (rec.error.details.length > 0) {
            s.set('details', rec.error.details.map(d => {
                const a = new Map();
                if (d.typeUrl)
                    a.set('type_url', d.typeUrl);
                if (d.value.length > 0)
                    a.set('value', d.value);
                return a;
            }));
        }
        o.set('error', s);
    }
    put('CreatedAt', timestamp(rec.createdAt));
    put('CompletedAt', timestamp(rec.completedAt));
    put('logs', descriptor(rec.logs));
    put('ExporterResponse', stringMap(rec.exporterResponse));
    put('Result', result(rec.result));
    put('Results', rec.results.length === 0 ? undefined : goMap(rec.results, r => result(r) ?? new Map()));
    put('Generation', rec.generation || undefined);
    put('trace', descriptor(rec.trace));
    put('pinned', rec.pinned || undefined);
    put('numCachedSteps', rec.numCachedSteps || undefined);
    put('numTotalSteps', rec.numTotalSteps || undefined);
    put('numCompletedSteps', rec.numCompletedSteps || undefined);
    put('externalError', descriptor(rec.externalError));
    put('numWarnings', rec.numWarnings || undefined);
    o.set('DefaultPlatform', extras.defaultPlatform);
    if (extras.localState) {
        const s = extras.localState;
        const st = new Map([
            ['Target', s.Target],
            ['LocalPath', s.LocalPath],
            ['DockerfilePath', s.DockerfilePath]
        ]);
        if (s.GroupRef)
            st.set('GroupRef', s.GroupRef);
        o.set('localState', st);
    }
    if (extras.stateGroup) {
        const g = new Map();
        if (extras.stateGroup.Targets?.length)
            g.set('Targets', extras.stateGroup.Targets);
        g.set('Refs', extras.stateGroup.Refs);
        o.set('stateGroup', g);
    }
    return o;
}
/** A descriptor as the generated Descriptor struct writes it; undefined for none (omitempty). */
function descriptor(d) {
    if (!d)
        return undefined;
    const o = new Map();
    if (d.mediaType)
        o.set('media_type', d.mediaType);
    if (d.digest)
        o.set('digest', d.digest);
    if (d.size !== 0n)
        o.set('size', d.size);
    const annotations = stringMap(d.annotations);
    if (annotations)
        o.set('annotations', annotations);
    return o;
}
function result(r) {
    if (!r)
        return undefined;
    const o = new Map();
    const deprecated = descriptor(r.resultDeprecated);
    if (deprecated)
        o.set('ResultDeprecated', deprecated);
    if (r.attestations.length > 0)
        o.set('Attestations', r.attestations.map(d => descriptor(d)));
    if (r.results.length > 0) {
        o.set('Results', goMap(r.results.map(([k, d]) => [k.toString(), d]), d => descriptor(d)));
    }
    return o;
}
function timestamp(t) {
    if (!t)
        return undefined;
    const o = new Map();
    if (t.seconds !== 0n)
        o.set('seconds', t.seconds);
    if (t.nanos !== 0)
        o.set('nanos', t.nanos);
    return o;
}
function stringMap(entries) {
    return entries.length === 0 ? undefined : goMap(entries, v => v);
}
/**
 * buildx's sanitizeCacheImports: the JSON list of cache imports with only the `scope` and `ref` attributes of
 * each (the others may hold credentials); '' when it is not such a list.
 */
function sanitizeCacheImports(value) {
    let parsed;
    try {
        parsed = JSON.parse(value);
    }
    catch {
        return '';
    }
    if (parsed === null)
        return 'null';
    if (!Array.isArray(parsed))
        return '';
    const out = [];
    for (const item of parsed) {
        if (item !== null && typeof item !== 'object')
            return '';
        const fields = (item ?? {});
        // Go matches JSON keys to struct fields without regard to case; the last match wins.
        let type = '';
        let attrs = {};
        for (const [k, v] of Object.entries(fields)) {
            if (k.toLowerCase() === 'type') {
                if (typeof v !== 'string' && v !== null)
                    return '';
                type = v ?? '';
            }
            else if (k.toLowerCase() === 'attrs') {
                if (v !== null && (typeof v !== 'object' || Array.isArray(v)))
                    return '';
                attrs = (v ?? {});
            }
        }
        const kept = [];
        for (const [k, v] of Object.entries(attrs)) {
            if (typeof v !== 'string' && v !== null)
                return '';
            if (k === 'scope' || k === 'ref')
                kept.push([k, v ?? '']);
        }
        out.push(new Map([
            ['Type', type],
            ['Attrs', goMap(kept, v => v)]
        ]));
    }
    return goJson(out);
}

;// CONCATENATED MODULE: ./packages/core/src/record/record-trace.ts

/**
 * The trace of a build record as buildx puts it into the bundle (util/desktop/bundle/trace.go): each span of
 * BuildKit's OTLP JSON stream decoded and written again with a two-space indent and a newline, the string
 * values of its `Attributes` cleared of credentials (sanitizeCommand). Key order and number literals are kept
 * as BuildKit wrote them (the same Go struct wrote them, so buildx writes them back unchanged).
 */
function sanitizeTrace(trace) {
    const out = [];
    for (const value of parseJsonStream(trace.toString('utf8'))) {
        if (!(value instanceof Map))
            throw new Error('the trace holds a value that is not a span');
        const span = asSpan(value);
        const attributes = span.get('Attributes');
        if (Array.isArray(attributes)) {
            for (const kv of attributes) {
                const v = kv instanceof Map ? kv.get('Value') : undefined;
                if (!(v instanceof Map) || v.get('Type') !== 'STRING')
                    continue;
                const text = v.get('Value');
                if (typeof text === 'string')
                    v.set('Value', sanitizeCommand(text));
            }
        }
        out.push(goJson(span, '  '), '\n');
    }
    return Buffer.from(out.join(''));
}
/**
 * A span as buildx's otelutil.Span writes it back: its fields in the struct's order, a missing one as its zero
 * value, the fields it does not have (InstrumentationScope, which newer BuildKits add) left out, the span
 * contexts without TraceState (buildx drops it) and the scope's attributes empty (buildx does not read them).
 */
function asSpan(s) {
    const context = (v) => struct(v, [
        ['TraceID', ''],
        ['SpanID', ''],
        ['TraceFlags', ''],
        ['TraceState', ''],
        ['Remote', false]
    ]).set('TraceState', '');
    const list = (v, item) => Array.isArray(v) ? v.map(item) : null;
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
    span.set('Events', list(s.get('Events'), e => struct(e, [
        ['Name', ''],
        ['Attributes', null],
        ['DroppedAttributeCount', 0],
        ['Time', ZERO_TIME]
    ])));
    span.set('Links', list(s.get('Links'), l => struct(l, [
        ['SpanContext', null],
        ['Attributes', null],
        ['DroppedAttributeCount', 0]
    ]).set('SpanContext', context(l instanceof Map ? l.get('SpanContext') : undefined))));
    span.set('Status', struct(s.get('Status'), [
        ['Code', 0],
        ['Description', '']
    ]));
    span.set('InstrumentationLibrary', struct(s.get('InstrumentationLibrary'), [
        ['Name', ''],
        ['Version', ''],
        ['SchemaURL', '']
    ]).set('Attributes', new Map()));
    return span;
}
/** Go's time.Time zero value as encoding/json writes it. */
const ZERO_TIME = '0001-01-01T00:00:00Z';
/** The fields of `v` named in `fields`, in that order, each defaulting to its zero value. */
function struct(v, fields) {
    const from = v instanceof Map ? v : new Map();
    return new Map(fields.map(([key, zero]) => [key, from.has(key) ? from.get(key) : zero]));
}
const SENSITIVE_ATTRS = /(ghtoken|token|access_key_id|secret_access_key|session_token)=[^ ,]+/gi;
const GITHUB_TOKENS = /(?:ghu|ghs)_[A-Za-z0-9]{36}/g;
const GITHUB_PATS = /github_pat_\w{82}/g;
/** buildx's sanitizeCommand: `token=…`-like values and GitHub tokens in a span's attribute become `xxxxx`. */
function sanitizeCommand(value) {
    return value.replace(SENSITIVE_ATTRS, '$1=xxxxx').replace(GITHUB_TOKENS, 'xxxxx').replace(GITHUB_PATS, 'xxxxx');
}
/** The JSON values of a stream (values one after another, white space between), objects as ordered Maps. */
function parseJsonStream(text) {
    const p = { text, at: 0 };
    const values = [];
    for (skipSpace(p); p.at < text.length; skipSpace(p))
        values.push(parseValue(p));
    return values;
}
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// eslint-disable-next-line no-control-regex -- JSON's control characters are what it names
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
function parseValue(p) {
    skipSpace(p);
    const c = p.text[p.at];
    if (c === '{') {
        p.at++;
        const o = new Map();
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
            if (p.text[p.at] === ',')
                p.at++;
            else
                return (expect(p, '}'), o);
        }
    }
    if (c === '[') {
        p.at++;
        const a = [];
        skipSpace(p);
        if (p.text[p.at] === ']') {
            p.at++;
            return a;
        }
        for (;;) {
            a.push(parseValue(p));
            skipSpace(p);
            if (p.text[p.at] === ',')
                p.at++;
            else
                return (expect(p, ']'), a);
        }
    }
    if (c === '"')
        return parseString(p);
    for (const [word, value] of [
        ['true', true],
        ['false', false],
        ['null', null]
    ]) {
        if (p.text.startsWith(word, p.at)) {
            p.at += word.length;
            return value;
        }
    }
    NUMBER.lastIndex = p.at;
    const m = NUMBER.exec(p.text);
    if (!m)
        throw new Error(`not JSON at offset ${p.at} of the trace`);
    p.at += m[0].length;
    return new GoNumber(m[0]);
}
function parseString(p) {
    STRING.lastIndex = p.at;
    const m = STRING.exec(p.text);
    if (!m)
        throw new Error(`not a JSON string at offset ${p.at} of the trace`);
    p.at += m[0].length;
    return JSON.parse(m[0]);
}
function expect(p, c) {
    if (p.text[p.at] !== c)
        throw new Error(`expected "${c}" at offset ${p.at} of the trace`);
    p.at++;
}
function skipSpace(p) {
    while (p.at < p.text.length && ' \t\n\r'.includes(p.text[p.at]))
        p.at++;
}

;// CONCATENATED MODULE: ./packages/core/src/record/grpc-record-export.ts







/** The annotation buildx keeps a result's own media type in (its layer is typed application/json). */
const REF_DESCRIPTOR_MEDIA_TYPE = 'vnd.export-build.descriptor.mediatype';
/** Every node answered, and none had a completed record of any ref (history off, or records deleted). */
class NoRecordError extends Error {
}
/**
 * `buildx history export --finalize <refs…>` without buildx: the records of `refs` read from every node's
 * BuildKit over our own gRPC client (a record without its trace finalized first), their blobs read from
 * BuildKit's content store, and the bundle put together as buildx's util/desktop/bundle does (record JSON,
 * sanitised trace, layers in buildx's order). Spares the step buildx's start and its builder loading, which
 * were most of the export's time. Throws when no record can be had or a call fails; the caller falls back
 * to buildx.
 */
async function exportRecordsGrpc(opts) {
    const open = opts.open ?? openNodeSession;
    const sessions = [];
    try {
        // Every session opened is closed below, also when another one failed to open.
        const opened = await Promise.allSettled(opts.nodes.map(node => open(node)));
        for (const o of opened)
            if (o.status === 'fulfilled')
                sessions.push(o.value);
        const failed = opened.find(o => o.status === 'rejected');
        if (failed)
            throw failed.reason;
        const histories = opts.nodes.map((node, i) => ({
            node,
            history: new BuildkitHistory({
                session: opened[i].value,
                signal: opts.signal
            })
        }));
        const query = async (ref) => (await Promise.all(histories.map(async (h) => (await h.history.records(ref)).map(record => ({ ...h, record }))))).flat();
        let found = await Promise.all(opts.refs.map(query));
        const untraced = () => found.flat().filter(r => r.record.trace === undefined);
        if (untraced().length > 0) {
            await Promise.all(untraced().map(r => r.history.finalize(r.record.ref)));
            found = await Promise.all(opts.refs.map(query));
            if (untraced().length > 0) {
                await opts.settle();
                found = await Promise.all(opts.refs.map(query));
            }
        }
        const missing = opts.refs.filter((_, i) => found[i].length === 0);
        // As buildx orders them: by ref as asked, then the newest first.
        const ordered = found.flatMap(rs => [...rs].sort((a, b) => compareTime(b.record, a.record)));
        if (ordered.length === 0)
            throw new NoRecordError(`no record found for ${refList(opts.refs)}`);
        const blobs = new Map();
        // The records' blobs are read at once (Promise.all keeps their order).
        const records = await Promise.all(ordered.map(r => recordManifest(r, opts, blobs)));
        return {
            bundle: { blobs, records },
            records: ordered.map(r => ({ ref: r.record.ref, node: r.node.name })),
            missing
        };
    }
    finally {
        for (const s of sessions)
            s.destroy();
    }
}
/** One record's manifest (and its blobs into `blobs`), as buildx's exportRecord writes it. */
async function recordManifest(r, opts, blobs) {
    const { record, history, node } = r;
    const visited = new Set();
    const fresh = (d) => {
        if (d === undefined || visited.has(d.digest))
            return false;
        visited.add(d.digest);
        return true;
    };
    // Every blob is asked for at once, the trace with the others; the config names the sanitised trace, so it is
    // written once that has come.
    const rawTrace = fresh(record.trace) ? history.blob(record.trace) : undefined;
    const layers = [];
    const reads = [];
    const add = (d, layer = ociDescriptor(d)) => {
        layers.push(layer);
        reads.push(history.blob(d).then(data => void blobs.set(d.digest, data)));
    };
    if (fresh(record.logs))
        add(record.logs);
    const results = (res) => {
        if (!res)
            return;
        for (const a of res.attestations)
            if (fresh(a))
                add(a);
        for (const [, d] of byKey(res.results)) {
            if (!fresh(d))
                continue;
            const annotations = [...d.annotations, [REF_DESCRIPTOR_MEDIA_TYPE, d.mediaType]];
            add(d, { mediaType: 'application/json', digest: d.digest, size: d.size, annotations });
        }
    };
    results(record.result);
    if (fresh(record.externalError))
        add(record.externalError);
    for (const [, res] of byKey(record.results))
        results(res);
    const [traceData] = await Promise.all([rawTrace, Promise.all(reads)]);
    let traced = record;
    if (traceData !== undefined && record.trace) {
        const trace = sanitizeTrace(traceData);
        const digest = (0,record_bundle.sha256)(trace);
        blobs.set(digest, trace);
        // buildx lists the trace first.
        layers.unshift({ mediaType: record.trace.mediaType, digest, size: BigInt(trace.length) });
        traced = { ...record, trace: { ...record.trace, digest, size: BigInt(trace.length) } };
    }
    const state = localState(opts.configDir, opts.builder, node.name, record.ref);
    const config = Buffer.from(goJson(historyRecordJson(traced, {
        defaultPlatform: node.platforms[0] ?? '',
        localState: state?.state,
        stateGroup: state?.group
    }), '  '));
    const configDigest = (0,record_bundle.sha256)(config);
    blobs.set(configDigest, config);
    const manifest = Buffer.from(goJson(new Map([
        ['schemaVersion', 2],
        ['mediaType', record_bundle.MANIFEST_MEDIA_TYPE],
        [
            'config',
            layerJson({ mediaType: record_bundle.HISTORY_RECORD_MEDIA_TYPE, digest: configDigest, size: BigInt(config.length) })
        ],
        ['layers', layers.length === 0 ? null : layers.map(layerJson)]
    ]), '  '));
    const digest = (0,record_bundle.sha256)(manifest);
    blobs.set(digest, manifest);
    return {
        mediaType: record_bundle.MANIFEST_MEDIA_TYPE,
        digest,
        size: manifest.length,
        annotations: { [record_bundle.HISTORY_REFERENCE_ANNOTATION]: record.ref }
    };
}
function ociDescriptor(d) {
    return { mediaType: d.mediaType, digest: d.digest, size: d.size, annotations: d.annotations };
}
function layerJson(l) {
    const o = new Map([
        ['mediaType', l.mediaType],
        ['digest', l.digest],
        ['size', l.size]
    ]);
    if (l.annotations && l.annotations.length > 0)
        o.set('annotations', goMap(l.annotations, v => v));
    return o;
}
/** buildx's local state of the build (and of its bake group), as `history export` adds it; none when unreadable. */
function localState(configDir, builder, node, ref) {
    const read = (path) => {
        try {
            const v = JSON.parse((0,external_node_fs_.readFileSync)(path, 'utf8'));
            return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
        }
        catch {
            return undefined;
        }
    };
    const text = (v) => (typeof v === 'string' ? v : '');
    const list = (v) => Array.isArray(v) && v.every(x => typeof x === 'string') ? v : undefined;
    const st = read((0,external_node_path_.join)(configDir, 'refs', builder, node, ref));
    if (!st)
        return undefined;
    const state = {
        Target: text(st.Target),
        LocalPath: text(st.LocalPath),
        DockerfilePath: text(st.DockerfilePath)
    };
    if (text(st.GroupRef))
        state.GroupRef = text(st.GroupRef);
    if (!state.GroupRef || !/^[a-z0-9]+$/.test(state.GroupRef))
        return { state };
    const g = read((0,external_node_path_.join)(configDir, 'refs', '__group__', state.GroupRef));
    if (!g)
        return { state };
    return { state, group: { Targets: list(g.Targets), Refs: list(g.Refs) ?? null } };
}
/** Map entries in key order (Go ranges over a map in random order; sorted, a file is the same each time). */
function byKey(entries) {
    return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
function compareTime(a, b) {
    const t = (r) => r.createdAt ? r.createdAt.seconds * 1000000000n + BigInt(r.createdAt.nanos) : 0n;
    const d = t(a) - t(b);
    return d < 0n ? -1 : d > 0n ? 1 : 0;
}
function refList(refs) {
    return refs.length === 1 ? `ref "${refs[0]}"` : `refs ${refs.map(r => `"${r}"`).join(', ')}`;
}


/***/ }),

/***/ 61683:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   HISTORY_RECORD_MEDIA_TYPE: () => (/* binding */ HISTORY_RECORD_MEDIA_TYPE),
/* harmony export */   HISTORY_REFERENCE_ANNOTATION: () => (/* binding */ HISTORY_REFERENCE_ANNOTATION),
/* harmony export */   INDEX_MEDIA_TYPE: () => (/* binding */ INDEX_MEDIA_TYPE),
/* harmony export */   MANIFEST_MEDIA_TYPE: () => (/* binding */ MANIFEST_MEDIA_TYPE),
/* harmony export */   readRecordBundle: () => (/* binding */ readRecordBundle),
/* harmony export */   recordConfig: () => (/* binding */ recordConfig),
/* harmony export */   recordRef: () => (/* binding */ recordRef),
/* harmony export */   sha256: () => (/* binding */ sha256)
/* harmony export */ });
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(77598);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_crypto__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(51455);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_fs_promises__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var node_zlib__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(38522);
/* harmony import */ var node_zlib__WEBPACK_IMPORTED_MODULE_2___default = /*#__PURE__*/__webpack_require__.n(node_zlib__WEBPACK_IMPORTED_MODULE_2__);
/* harmony import */ var tar_stream__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(56118);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(37638);





/**
 * The `.dockerbuild` format, as buildx's `history export` writes it (util/desktop/bundle/export.go, through
 * containerd's images/archive exporter with WithSkipDockerManifest): a gzip-compressed tar of an OCI layout,
 * entries sorted by name (`blobs/`, `blobs/sha256/`, the blobs, `index.json`, `oci-layout`), owner 0, time 0
 * (as buildx 0.29.1 wrote it against a real BuildKit). index.json lists
 * one descriptor: the record's manifest when the file holds one record, else an index (the blob written with
 * Go's json.MarshalIndent) listing one manifest per record, each annotated with its ref. A record's manifest has
 * the history record as its config (HISTORY_RECORD_MEDIA_TYPE) and the trace, logs and results as layers.
 */
const HISTORY_RECORD_MEDIA_TYPE = 'application/vnd.buildkit.historyrecord.v0';
/** The annotation buildx puts on each record's manifest in a file of several records. */
const HISTORY_REFERENCE_ANNOTATION = 'vnd.buildkit.history.reference';
const INDEX_MEDIA_TYPE = 'application/vnd.oci.image.index.v1+json';
const MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json';
/** Bounds of what is read from a file (records are KBs to a few MBs; a bad file must not eat the runner's memory). */
const MAX_FILE_BYTES = 512 * 1024 * 1024;
/**
 * Reads a `.dockerbuild` file: every blob (each checked against its digest) and the descriptor of each record's
 * manifest, checked down to its history-record config. The index of a file of several records is left out of
 * `blobs` (a merge writes its own). Throws, saying what is wrong, when the file is not a complete record file.
 */
async function readRecordBundle(path) {
    const data = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.readFile)(path);
    if (data.length > MAX_FILE_BYTES)
        throw new Error(`it is larger than ${MAX_FILE_BYTES} bytes`);
    let tar;
    try {
        tar = (0,node_zlib__WEBPACK_IMPORTED_MODULE_2__.gunzipSync)(data, { maxOutputLength: MAX_FILE_BYTES });
    }
    catch (e) {
        throw new Error(`not gzip-compressed (${(0,_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .errorMessage */ .gJ)(e)})`);
    }
    const files = await untar(tar);
    if (!files.has('oci-layout'))
        throw new Error('no oci-layout: not an OCI layout');
    const blobs = new Map();
    for (const [name, content] of files) {
        const m = /^blobs\/sha256\/([0-9a-f]{64})$/.exec(name);
        if (!m)
            continue;
        const digest = `sha256:${m[1]}`;
        if (sha256(content) !== digest)
            throw new Error(`blob ${digest} does not match its digest`);
        blobs.set(digest, content);
    }
    const json = (what, content) => {
        if (content === undefined)
            throw new Error(`no ${what}`);
        try {
            const parsed = JSON.parse(content.toString('utf8'));
            if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
                return parsed;
            }
        }
        catch {
            // said below
        }
        throw new Error(`${what} is not a JSON object`);
    };
    const blobJson = (d) => json(`blob ${d.digest}`, blobs.get(d.digest));
    const top = descriptors(json('index.json', files.get('index.json')).manifests, 'index.json');
    const records = [];
    for (const d of top) {
        if (d.mediaType === INDEX_MEDIA_TYPE) {
            const manifests = descriptors(blobJson(d).manifests, `index ${d.digest}`);
            blobs.delete(d.digest);
            for (const m of manifests)
                records.push(checkedRecord(m, blobJson, blobs));
        }
        else {
            records.push(checkedRecord(d, blobJson, blobs));
        }
    }
    if (records.length === 0)
        throw new Error('index.json lists no record');
    return { blobs, records };
}
/** The record manifest `d` (its blobs present), annotated with its ref (read from the record when it has none). */
function checkedRecord(d, blobJson, blobs) {
    if (d.mediaType !== MANIFEST_MEDIA_TYPE)
        throw new Error(`${d.digest} is a ${d.mediaType}, not a record's manifest`);
    const manifest = blobJson(d);
    const [config] = descriptors([manifest.config], `manifest ${d.digest}'s config`);
    if (config?.mediaType !== HISTORY_RECORD_MEDIA_TYPE) {
        throw new Error(`manifest ${d.digest} has no build record config`);
    }
    for (const layer of descriptors(manifest.layers ?? [], `manifest ${d.digest}'s layers`)) {
        if (!blobs.has(layer.digest))
            throw new Error(`blob ${layer.digest} of manifest ${d.digest} is missing`);
    }
    const record = blobJson(config);
    const ref = d.annotations?.[HISTORY_REFERENCE_ANNOTATION] ?? (typeof record.Ref === 'string' ? record.Ref : '');
    if (ref === '')
        throw new Error(`the record of manifest ${d.digest} has no Ref`);
    return { ...d, annotations: { ...d.annotations, [HISTORY_REFERENCE_ANNOTATION]: ref } };
}
function descriptors(value, what) {
    if (!Array.isArray(value))
        throw new Error(`${what} has no descriptor list`);
    return value.map(v => {
        const d = v;
        if (d === null ||
            typeof d !== 'object' ||
            typeof d.mediaType !== 'string' ||
            typeof d.digest !== 'string' ||
            !/^sha256:[0-9a-f]{64}$/.test(d.digest) ||
            typeof d.size !== 'number') {
            throw new Error(`${what} holds a malformed descriptor`);
        }
        return d;
    });
}
/** The ref of a record descriptor (readRecordBundle sets it on each). */
function recordRef(d) {
    return d.annotations?.[HISTORY_REFERENCE_ANNOTATION] ?? '';
}
function sha256(data) {
    return `sha256:${(0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createHash)('sha256').update(data).digest('hex')}`;
}
/** The regular files of a tar archive by name (`./` dropped). */
async function untar(tar) {
    const files = new Map();
    const x = (0,tar_stream__WEBPACK_IMPORTED_MODULE_3__.extract)();
    const done = (async () => {
        for await (const entry of x) {
            const chunks = [];
            for await (const chunk of entry)
                chunks.push(chunk);
            if (entry.header.type === 'file')
                files.set(entry.header.name.replace(/^\.\//, ''), Buffer.concat(chunks));
        }
    })();
    x.end(tar);
    try {
        await done;
    }
    catch (e) {
        throw new Error(`not a tar archive (${(0,_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .errorMessage */ .gJ)(e)})`);
    }
    return files;
}
/** The history record (the manifest's config, a BuildHistoryRecord as buildx writes it) of record `d` of `bundle`. */
function recordConfig(bundle, d) {
    const json = (digest) => {
        const content = bundle.blobs.get(digest);
        if (content === undefined)
            throw new Error(`no blob ${digest}`);
        return JSON.parse(content.toString('utf8'));
    };
    const config = json(d.digest).config;
    return json(config.digest);
}


/***/ })

};
