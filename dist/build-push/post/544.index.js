export const id = 544;
export const ids = [544];
export const modules = {

/***/ 97544:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   A: () => (__WEBPACK_DEFAULT_EXPORT__)
/* harmony export */ });
// Stands in for unzip-stream (see package.json): extracting a zipped artifact is the one thing it did for
// @actions/artifact (`import unzip from 'unzip-stream'`), and the actions only upload. Anything that reaches
// it says so instead of misbehaving.
function notBundled() {
  throw new Error(
    'remote-builder-actions: unzip-stream is not bundled (the actions only upload artifacts; a zipped download cannot be extracted here)'
  );
}

/* harmony default export */ const __WEBPACK_DEFAULT_EXPORT__ = ({Parse: notBundled, Extract: notBundled});


/***/ })

};
