// What each example needs around it to run against the emulator, and what it must produce. One table for the
// local examples suite and for the generated .github/workflows/examples.yml, so both run the same thing.
import type {ApiKey, FaultRule, ProfileConfig} from '@remote-builder-actions/emulator';

/** The API key the emulator accepts for the examples; it stands in for secrets.REMOTE_BUILDER_API_KEY. */
export const EXAMPLES_API_KEY = 'rb_examples_key_5d2a9c41e7';

/** The profiles the examples name. */
export const EXAMPLES_PROFILES: ProfileConfig[] = [
  {name: 'my-profile', architectures: ['amd64'], size: '32x64', readyDelayMs: 300},
  {name: 'my-backup-profile', architectures: ['amd64'], size: '16x32', readyDelayMs: 300},
  {
    name: 'multi-arch-profile',
    architectures: ['amd64', 'arm64'],
    buildersPerAssignment: 2,
    size: '32x64',
    readyDelayMs: 300
  }
];

export const EXAMPLES_API_KEYS: ApiKey[] = [{key: EXAMPLES_API_KEY, scopes: ['builders']}];

const DOCKERFILE = 'FROM alpine:3.20\nRUN echo hello > /hello\nCOPY . /src\n';
const BAKE_FILE = `group "default" {
  targets = ["api", "web"]
}

target "api" {
  dockerfile = "Dockerfile"
  tags       = ["ghcr.io/octo-org/octo-repo/api:latest"]
}

target "web" {
  dockerfile = "Dockerfile"
  tags       = ["ghcr.io/octo-org/octo-repo/web:latest"]
}
`;

export interface ExampleSetup {
  /** Files actions/checkout leaves in the workspace (the user's repository). */
  workspace: Record<string, string>;
  /** Added to the emulator before the job (emu.addFault here; POST /_emulator/faults in CI). */
  faults?: FaultRule[];
  /** Outputs that must be set (non-empty), per step id, after the job. */
  outputs: Record<string, string[]>;
  /** Builders the emulator's ledger must show assigned (all torn down after post). */
  assigned: number;
  /** The build the example runs: one docker call (argv joined by spaces) must match (checked locally). */
  build: RegExp;
  /** Each must match a warning annotation of some step (checked locally). */
  warnings?: RegExp[];
}

/** Every example under examples/ has an entry; the suite fails for one without. */
export const EXAMPLE_SETUPS: Record<string, ExampleSetup> = {
  'build-push': {
    workspace: {Dockerfile: DOCKERFILE},
    outputs: {build: ['digest', 'imageid', 'metadata', 'attempts', 'time-to-ready', 'cached-steps', 'cache-ratio']},
    assigned: 1,
    build: /^buildx build (?=.*--push)(?=.*--tag ghcr\.io\/octo-org\/octo-repo:latest)/
  },
  'multi-arch': {
    workspace: {Dockerfile: DOCKERFILE},
    outputs: {build: ['digest', 'metadata', 'attempts', 'time-to-ready']},
    assigned: 2,
    build: /^buildx build .*--platform linux\/amd64,linux\/arm64/
  },
  bake: {
    workspace: {Dockerfile: DOCKERFILE, 'docker-bake.hcl': BAKE_FILE},
    outputs: {bake: ['metadata', 'attempts', 'time-to-ready', 'cached-steps', 'cache-ratio']},
    assigned: 1,
    build: /^buildx bake (?!.*--print).*--push/
  },
  'configure-custom-step': {
    workspace: {Dockerfile: DOCKERFILE},
    outputs: {builder: ['name', 'platforms', 'builder-ids', 'nodes', 'time-to-ready']},
    assigned: 1,
    // The example's own run: step, on the configured builder.
    build: /^buildx build --builder remote-builder-\S+ --platform linux\/amd64 --tag app:test \.$/
  },
  fallback: {
    workspace: {Dockerfile: DOCKERFILE},
    // The service is down: every assignment answers 503 (after the client's retries), so both profiles fail.
    faults: [{route: 'assign', status: 503}],
    // attempts is 1 (the local build); time-to-ready stays empty: no remote builder was ready.
    outputs: {build: ['digest', 'imageid', 'metadata', 'attempts']},
    assigned: 0,
    build: /^buildx build .*--builder remote-builder-fallback-/,
    warnings: [/Building on a local docker-container builder instead \(fallback: local\)/]
  }
};
