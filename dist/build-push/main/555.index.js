export const id = 555;
export const ids = [555,683];
export const modules = {

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


/***/ }),

/***/ 33555:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  entryFromRecord: () => (/* binding */ entryFromRecord),
  recordFacts: () => (/* binding */ recordFacts)
});

// EXTERNAL MODULE: ./packages/core/src/record/record-bundle.ts
var record_bundle = __webpack_require__(61683);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
;// CONCATENATED MODULE: ./packages/core/src/record/record-name.ts

/**
 * A build's name as buildx's `history inspect` and docker's summary give it (buildx util/history/name.go
 * BuildName): BUILDKIT_BUILD_NAME, else the context or Dockerfile path and the target, from the record's frontend
 * attributes and buildx's local state of the ref. Paths are the runner's (POSIX).
 */
function buildName(attrs, local) {
    const given = attrs['build-arg:BUILDKIT_BUILD_NAME'];
    if (given)
        return given;
    const target = attrs.target ?? '';
    let contextPath = '';
    if (attrs.context !== undefined)
        contextPath = attrs.context;
    else if (attrs['vcs:localdir:context'] !== undefined && attrs['vcs:localdir:context'] !== '.') {
        contextPath = attrs['vcs:localdir:context'];
    }
    let vcsSource = '';
    if (attrs['vcs:source'] !== undefined)
        vcsSource = attrs['vcs:source'];
    else if (attrs['input:context'] !== undefined && isGitUrl(attrs['input:context']))
        vcsSource = attrs['input:context'];
    let dockerfilePath = '';
    if (attrs.filename !== undefined && attrs.filename !== 'Dockerfile')
        dockerfilePath = attrs.filename;
    const dfDir = attrs['vcs:localdir:dockerfile'];
    if (dfDir !== undefined && dfDir !== '.')
        dockerfilePath = external_node_path_.posix.join(dfDir, dockerfilePath);
    let localPath = '';
    const lsPath = typeof local?.LocalPath === 'string' ? local.LocalPath : '';
    const lsDockerfile = typeof local?.DockerfilePath === 'string' ? local.DockerfilePath : '';
    if (local !== undefined && !isRemoteUrl(lsPath)) {
        if (lsPath !== '' && lsPath !== '-')
            localPath = lsPath;
        if (lsDockerfile !== '' && lsDockerfile !== '-' && lsDockerfile !== 'Dockerfile')
            dockerfilePath = lsDockerfile;
    }
    const defaultFilename = '/Dockerfile';
    const hasDefaultFileName = dockerfilePath.endsWith(defaultFilename) || dockerfilePath === '';
    if (dockerfilePath.endsWith(defaultFilename))
        dockerfilePath = dockerfilePath.slice(0, -defaultFilename.length);
    let res = '';
    if (dockerfilePath.startsWith(localPath) && dockerfilePath.length > localPath.length) {
        res = dockerfilePath.slice(localPath.lastIndexOf('/') + 1);
    }
    else {
        const bpath = dockerfilePath.length > 0 ? dockerfilePath : localPath;
        if (bpath.length > 0) {
            const lidx = bpath.lastIndexOf('/');
            res = bpath.slice(lidx + 1);
            if (!hasDefaultFileName) {
                res = external_node_path_.posix.join(external_node_path_.posix.basename(lidx !== -1 ? bpath.slice(0, lidx) : bpath) || '.', res);
            }
        }
    }
    if (contextPath.length > 0)
        res = contextPath;
    if (target.length > 0)
        res = res.length > 0 ? `${res} (${target})` : target;
    if (res === '' && vcsSource !== '')
        return gitFragmentFormat(vcsSource);
    return res;
}
/** A context that is a URL (buildx urlutil.IsRemoteURL: http(s), git and ssh forms). */
function isRemoteUrl(s) {
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || isGitUrl(s);
}
/** A Git reference as BuildKit's dfgitutil.ParseGitRef reads one (a URL ending .git, git@…, git://, github.com/…). */
function isGitUrl(s) {
    return (/^(git@|git:\/\/|ssh:\/\/)/.test(s) || /^github\.com\//.test(s) || (/^https?:\/\//.test(s) && /\.git(#|$)/.test(s)));
}
/** dfgitutil.FragmentFormat without the subdir: the remote, with `#ref` when the URL names one. */
function gitFragmentFormat(url) {
    const hash = url.indexOf('#');
    if (hash === -1)
        return url;
    const remote = url.slice(0, hash);
    const ref = url.slice(hash + 1).split(':')[0] ?? '';
    return ref === '' ? remote : `${remote}#${ref}`;
}

;// CONCATENATED MODULE: ./packages/core/src/record/record-facts.ts


/** gRPC's code for a cancelled call (BuildKit's record of a cancelled build). */
const GRPC_CANCELED = 1;
/**
 * The summary's facts of every build in an exported `.dockerbuild`, read after the teardown: what `buildx
 * history inspect` would have said (name, status, duration, steps, error), from the history records the file
 * holds, so that no inspect holds the builder. One entry per ref, in the order of `nodes` (each ref asked, with
 * the buildx nodes that built it); a ref several nodes recorded (buildx >= 0.33) is told by its first record,
 * as `history inspect` shows one. `bundle` is the file as readRecordBundle read it.
 */
function recordFacts(bundle, nodes) {
    const byRef = new Map();
    for (const d of bundle.records) {
        const ref = (0,record_bundle.recordRef)(d);
        if (!byRef.has(ref))
            byRef.set(ref, entryFromRecord((0,record_bundle.recordConfig)(bundle, d), ref, nodes.get(ref)));
    }
    const asked = [...nodes].map(([ref, node]) => byRef.get(ref) ?? { ref, ...(node !== undefined ? { node } : {}) });
    return [...asked, ...[...byRef.values()].filter(e => !nodes.has(e.ref))];
}
/**
 * One build's entry from its history record (BuildKit's BuildHistoryRecord as buildx's bundle writes it with Go's
 * encoding/json: `Ref`, `FrontendAttrs`, `error` {code, message}, `CreatedAt`/`CompletedAt`, `numCachedSteps`, …,
 * and buildx's `localState`). Read tolerantly: a field that is missing or of another shape is left out.
 * Status and duration as `history inspect` derives them: no CompletedAt is a running build; an error with
 * gRPC code 1 a cancelled one, any other an error.
 */
function entryFromRecord(record, ref, node) {
    const entry = { ref: typeof record.Ref === 'string' && record.Ref !== '' ? record.Ref : ref };
    if (node !== undefined)
        entry.node = node;
    const name = buildName(stringMap(record.FrontendAttrs), objectOf(record.localState));
    if (name !== '')
        entry.name = name;
    const created = timestampMs(record.CreatedAt);
    const completed = timestampMs(record.CompletedAt);
    // Any error at all is a failed build; its code and message only when it has the Status shape.
    const failed = record.error !== undefined && record.error !== null;
    const error = objectOf(record.error);
    const code = typeof error?.code === 'number' ? error.code : undefined;
    if (failed)
        entry.status = code === GRPC_CANCELED ? 'canceled' : 'failed';
    else if (completed !== undefined)
        entry.status = 'completed';
    else
        entry.status = 'running';
    if (created !== undefined && completed !== undefined && completed >= created) {
        entry.durationMs = Math.round(completed - created);
    }
    for (const [from, to] of [
        ['numCachedSteps', 'numCachedSteps'],
        ['numTotalSteps', 'numTotalSteps'],
        ['numCompletedSteps', 'numCompletedSteps']
    ]) {
        const v = record[from];
        // Go's omitempty leaves out a zero.
        entry[to] = typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
    }
    const message = typeof error?.message === 'string' ? error.message : '';
    if (entry.status === 'failed' && message !== '')
        entry.error = message;
    return entry;
}
/**
 * A protobuf Timestamp as Go's encoding/json writes one (`{"seconds": n, "nanos": n}`, either omitted when zero),
 * or an RFC 3339 string (as gogo's stdtime wrote it in older BuildKits), in epoch ms.
 */
function timestampMs(v) {
    if (typeof v === 'string') {
        const t = Date.parse(v);
        return Number.isNaN(t) ? undefined : t;
    }
    const o = objectOf(v);
    if (o === undefined)
        return undefined;
    const seconds = typeof o.seconds === 'number' ? o.seconds : typeof o.seconds === 'string' ? Number(o.seconds) : 0;
    const nanos = typeof o.nanos === 'number' ? o.nanos : 0;
    const ms = seconds * 1000 + nanos / 1e6;
    return Number.isFinite(ms) ? ms : undefined;
}
function objectOf(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
}
function stringMap(v) {
    const o = objectOf(v) ?? {};
    return Object.fromEntries(Object.entries(o).filter((e) => typeof e[1] === 'string'));
}


/***/ })

};
