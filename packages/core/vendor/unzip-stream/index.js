// Stands in for unzip-stream (see package.json): extracting a zipped artifact is the one thing it did for
// @actions/artifact (`import unzip from 'unzip-stream'`), and the actions only upload. Anything that reaches
// it says so instead of misbehaving.
function notBundled() {
  throw new Error(
    'remote-builder-actions: unzip-stream is not bundled (the actions only upload artifacts; a zipped download cannot be extracted here)'
  );
}

export default {Parse: notBundled, Extract: notBundled};
