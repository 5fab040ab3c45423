// Build checks for the recording fake docker, only with FAKE_DOCKER_BUILD_WARNINGS=<file> (a JSON array of
// warnings in buildx's metadata shape, `buildx.build.warnings`): after a build or bake wrote its
// --metadata-file, the warnings are added at its top level (as buildx does with BUILDX_METADATA_WARNINGS=true,
// for a bake too), and the local state of each build ref is written as buildx's saveLocalState does
// (build/localstate.go): <BUILDX_CONFIG, else $DOCKER_CONFIG/buildx, else ~/.docker/buildx>/refs/<builder>/<node>/<id>
// holding {Target, LocalPath, DockerfilePath}: local paths absolute (from the cwd), a remote context as given,
// stdin as `-`. Without the variable nothing is written (the user's buildx folder stays untouched).
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {homedir} from 'node:os';
import {isAbsolute, join, resolve} from 'node:path';

const isRemote = s => /^(https?:\/\/|git:\/\/|ssh:\/\/|github\.com\/|git@)/.test(s);

/** `buildx build` (argv after `buildx`): its context is the last argument, its Dockerfile --file ('' for none). */
export function addBuildChecks(metadataFile, ref, argv) {
  const i = argv.findIndex(a => a === '--file' || a === '-f');
  const dockerfile = i >= 0 ? argv[i + 1] : '';
  save(metadataFile, [{ref, target: 'default', context: argv[argv.length - 1], dockerfile}]);
}

/** `buildx bake`: one build per target of the resolved definition, its ref from the metadata written. */
export function addBakeChecks(metadataFile, targets, metadata) {
  const builds = Object.entries(targets).map(([name, t]) => ({
    ref: metadata[name]['buildx.build.ref'],
    target: name,
    context: t.context,
    dockerfile: t['dockerfile-inline'] !== undefined ? '-' : t.dockerfile,
    bake: true
  }));
  save(metadataFile, builds);
}

/** builds = [{ref, target, context, dockerfile ('' for none, '-' for stdin), bake}]. */
function save(metadataFile, builds) {
  const file = process.env.FAKE_DOCKER_BUILD_WARNINGS;
  if (!file) return;
  const metadata = JSON.parse(readFileSync(metadataFile, 'utf8'));
  metadata['buildx.build.warnings'] = JSON.parse(readFileSync(file, 'utf8'));
  writeFileSync(metadataFile, JSON.stringify(metadata));
  const configDir =
    process.env.BUILDX_CONFIG || join(process.env.DOCKER_CONFIG || join(homedir(), '.docker'), 'buildx');
  for (const b of builds) {
    const remote = isRemote(b.context);
    // bake joins a relative Dockerfile to its target's context (bake.go toBuildOpt).
    let dockerfile = b.dockerfile;
    if (b.bake && dockerfile !== '-' && !remote && !isAbsolute(dockerfile)) dockerfile = join(b.context, dockerfile);
    const local = !remote && b.context !== '-';
    const state = {
      Target: b.target,
      LocalPath: local ? resolve(b.context) : b.context,
      DockerfilePath: dockerfile !== '' && local && dockerfile !== '-' ? resolve(dockerfile) : dockerfile
    };
    const [builder, node, id] = b.ref.split('/');
    mkdirSync(join(configDir, 'refs', builder, node), {recursive: true});
    writeFileSync(join(configDir, 'refs', builder, node, id), JSON.stringify(state));
  }
}
