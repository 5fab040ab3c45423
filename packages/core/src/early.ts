// Imported first by each action's main (`import '@remote-builder-actions/core/early'`), so that its body runs
// before the rest of the bundle is loaded: it starts the step's `buildx version` (early-version.ts). Import
// nothing else here: whatever this module imports loads before the version starts.
import {startEarlyBuildxVersion} from './buildx/early-version.js';

startEarlyBuildxVersion();
