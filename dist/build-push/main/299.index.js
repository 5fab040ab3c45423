export const id = 299;
export const ids = [299];
export const modules = {

/***/ 99299:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   mergeRecordFiles: () => (/* binding */ mergeRecordFiles),
/* harmony export */   writeRecordBundle: () => (/* binding */ writeRecordBundle)
/* harmony export */ });
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(51455);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_fs_promises__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(76760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_path__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var node_zlib__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(38522);
/* harmony import */ var node_zlib__WEBPACK_IMPORTED_MODULE_2___default = /*#__PURE__*/__webpack_require__.n(node_zlib__WEBPACK_IMPORTED_MODULE_2__);
/* harmony import */ var tar_stream__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(56118);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(37638);
/* harmony import */ var _record_bundle_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(61683);






/**
 * A `.dockerbuild` of `bundles` together, as buildx writes a file of several records: the union of their blobs
 * and one index listing every record once (a manifest met twice is one record), in the bundles' order.
 */
async function writeRecordBundle(bundles) {
    const blobs = new Map();
    const records = [];
    for (const b of bundles) {
        for (const [digest, content] of b.blobs)
            blobs.set(digest, content);
        for (const r of b.records)
            if (!records.some(o => o.digest === r.digest))
                records.push(r);
    }
    const json = (value, indent) => Buffer.from(JSON.stringify(value, null, indent));
    let top;
    if (records.length === 1 && records[0]) {
        // One record: buildx lists its manifest itself, without the annotation.
        const { annotations, ...rest } = records[0];
        const others = Object.entries(annotations ?? {}).filter(([k]) => k !== _record_bundle_js__WEBPACK_IMPORTED_MODULE_5__/* .HISTORY_REFERENCE_ANNOTATION */ .dl);
        top = others.length > 0 ? { ...rest, annotations: Object.fromEntries(others) } : rest;
    }
    else {
        const index = json({ schemaVersion: 2, mediaType: _record_bundle_js__WEBPACK_IMPORTED_MODULE_5__/* .INDEX_MEDIA_TYPE */ .DZ, manifests: records }, 2);
        const digest = (0,_record_bundle_js__WEBPACK_IMPORTED_MODULE_5__/* .sha256 */ .sc)(index);
        blobs.set(digest, index);
        top = { mediaType: _record_bundle_js__WEBPACK_IMPORTED_MODULE_5__/* .INDEX_MEDIA_TYPE */ .DZ, digest, size: index.length };
    }
    const entries = [
        ['blobs/', undefined, 0o755],
        ['blobs/sha256/', undefined, 0o755],
        ...[...blobs].map(([d, c]) => [`blobs/sha256/${d.slice('sha256:'.length)}`, c, 0o444]),
        ['index.json', json({ schemaVersion: 2, mediaType: _record_bundle_js__WEBPACK_IMPORTED_MODULE_5__/* .INDEX_MEDIA_TYPE */ .DZ, manifests: [top] }), 0o644],
        ['oci-layout', json({ imageLayoutVersion: '1.0.0' }), 0o444]
    ];
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const p = (0,tar_stream__WEBPACK_IMPORTED_MODULE_3__.pack)();
    const out = streamToBuffer(p);
    for (const [name, content, mode] of entries) {
        const header = { name, mode, mtime: new Date(0), uid: 0, gid: 0 };
        if (content === undefined)
            p.entry({ ...header, type: 'directory' });
        else
            p.entry({ ...header, type: 'file', size: content.length }, content);
    }
    p.finalize();
    return (0,node_zlib__WEBPACK_IMPORTED_MODULE_2__.gzipSync)(await out);
}
/**
 * Writes one `.dockerbuild` holding every record of `files` (writeRecordBundle). A file that cannot be read as
 * a record file is left out with a warning, and the others are still written. Never throws for a bad input;
 * throws only when `output` cannot be written.
 */
async function mergeRecordFiles(opts) {
    const bundles = [];
    const merged = [];
    const warnings = [];
    for (const f of opts.files) {
        try {
            bundles.push(await (0,_record_bundle_js__WEBPACK_IMPORTED_MODULE_5__/* .readRecordBundle */ .g9)(f.path));
            merged.push(f.path);
        }
        catch (e) {
            warnings.push(`the record of ${f.label} (${(0,node_path__WEBPACK_IMPORTED_MODULE_1__.basename)(f.path)}) is left out of the record file: ${(0,_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .errorMessage */ .gJ)(e)}`);
        }
    }
    if (bundles.length === 0)
        return { merged, records: 0, warnings };
    const data = await writeRecordBundle(bundles);
    await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.writeFile)(opts.output, data);
    const records = new Set(bundles.flatMap(b => b.records.map(r => r.digest))).size;
    return { merged, records, warnings };
}
async function streamToBuffer(stream) {
    const chunks = [];
    for await (const chunk of stream)
        chunks.push(chunk);
    return Buffer.concat(chunks);
}


/***/ })

};
