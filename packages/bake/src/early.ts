// main.ts's first import: starts `buildx version` while the rest of the bundle loads, unless the step installs
// its own buildx (`buildx-version`). A literal input name: importing the inputs would load the whole core first.
import {earlyInput, startEarlyBuildxVersion} from '@remote-builder-actions/core/early';

if (earlyInput('buildx-version') === '') startEarlyBuildxVersion();
