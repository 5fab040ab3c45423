export const id = 377;
export const ids = [377];
export const modules = {

/***/ 39377:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   actionsToolCache: () => (/* binding */ actionsToolCache)
/* harmony export */ });
/* harmony import */ var _actions_tool_cache__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(59805);
// The runner's tool cache (@actions/tool-cache) behind core's ToolCache seam; only adapters import @actions/*.

/** ToolCache on RUNNER_TOOL_CACHE, as every official setup-* action uses it. */
const actionsToolCache = {
    find: (tool, version, arch) => _actions_tool_cache__WEBPACK_IMPORTED_MODULE_0__/* .find */ .I6(tool, version, arch),
    cacheFile: (sourceFile, targetFile, tool, version, arch) => _actions_tool_cache__WEBPACK_IMPORTED_MODULE_0__/* .cacheFile */ .NJ(sourceFile, targetFile, tool, version, arch)
};


/***/ })

};
