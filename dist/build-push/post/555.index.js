export const id = 555;
export const ids = [555];
export const modules = {

/***/ 33555:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  recordFacts: () => (/* binding */ recordFacts)
});

// UNUSED EXPORTS: entryFromRecord

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
 * as `history inspect` shows one. Throws when the file is not a record file.
 */
async function recordFacts(path, nodes) {
    const bundle = await (0,record_bundle/* readRecordBundle */.g9)(path);
    const byRef = new Map();
    for (const d of bundle.records) {
        const ref = (0,record_bundle/* recordRef */.Ji)(d);
        if (!byRef.has(ref))
            byRef.set(ref, entryFromRecord((0,record_bundle/* recordConfig */.CJ)(bundle, d), ref, nodes.get(ref)));
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
