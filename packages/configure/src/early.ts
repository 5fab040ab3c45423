// main.ts's first import: starts `buildx version` while the rest of the bundle loads, unless the inputs say
// the step needs no docker (`setup-buildx: false`) or installs its own buildx (`buildx-version`). Literal input
// names: importing context.ts here would load the whole core first (early.test.ts checks they match).
import {earlyInput, startEarlyBuildxVersion, yamlBoolean} from '@remote-builder-actions/core/early';

if (yamlBoolean(earlyInput('setup-buildx')) !== false && earlyInput('buildx-version') === '') startEarlyBuildxVersion();
