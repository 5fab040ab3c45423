// The plain progress output (`--progress=plain`, what buildx prints to stderr when stderr is not a terminal)
// of the fake docker's builds and bakes, in the shape of the real captures in
// packages/core/__tests__/docker/fixtures/: numbered vertices separated by blank lines, each its name, its
// log lines and how it ended (`DONE 0.1s`, or `CACHED` for a build step BuildKit answered from its cache).
// A build is its Dockerfile's FROM and steps (dockerfile.mjs), a bake target the canned small Dockerfile: FROM,
// then three build steps (WORKDIR, COPY, RUN); then the export. On a cold builder the steps run (`DONE`); on a
// warm one they are `CACHED` (and FROM prints `DONE 0.0s`, as dockerd's BuildKit does for an image it has). A bake of several targets prefixes every
// vertex name with its target (`[app internal] …`, `[app 2/4] WORKDIR /src`, `[app] exporting to image`).
import {createHash} from 'node:crypto';

const BASE = 'docker.io/library/alpine:3.20';
const BASE_DIGEST = '1e42bbe2508154c9126d48c2b8a75420c3544343bf86fd041fb7527e017a4b4a';
const BASE_LAYER = '43c4264eed91be63b206e17d93e75256a6097070ce643c5e8f0379998b44f170';

const sha = (...parts) => createHash('sha256').update(parts.join(':')).digest('hex');

/** `user/app:1` → `docker.io/user/app:1`, as BuildKit names images. */
function normalizeTag(tag) {
  const first = tag.split('/')[0];
  const hasRegistry = tag.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasRegistry) return tag;
  return `docker.io/${tag.includes('/') ? '' : 'library/'}${tag}`;
}

/** The canned Dockerfile's base and steps, for a build whose Dockerfile is not read (bake's targets). */
const CANNED = {from: 'alpine:3.20', steps: ['WORKDIR /src', 'COPY . .', 'RUN ./build.sh']};

/**
 * The vertices of one Dockerfile build, in the order buildx prints them.
 * opts: {warm, dockerfile, tags, exporter: 'registry' | 'docker' | undefined, seed, target (bake of several targets),
 * parsed: {from, steps} of the Dockerfile (dockerfile.mjs; default the canned one: FROM alpine, WORKDIR, COPY, RUN)}
 */
function dockerfileVertices(opts) {
  const {warm, dockerfile = 'Dockerfile', tags = [], exporter, seed = '', target, parsed = CANNED} = opts;
  const digest = what => sha(seed, target ?? '', what);
  const name = n => {
    if (target === undefined) return n;
    if (n.startsWith('[internal] ')) return `[${target} internal] ${n.slice('[internal] '.length)}`;
    if (n.startsWith('[')) return `[${target} ${n.slice(1)}`;
    return `[${target}] ${n}`;
  };
  const step = (n, logs, ranFor) => ({name: name(n), logs: warm ? [] : logs, end: warm ? 'CACHED' : `DONE ${ranFor}`});
  const base = parsed.from === null ? undefined : parsed === CANNED ? BASE : normalizeTag(parsed.from);
  const from = `${base}@sha256:${BASE_DIGEST}`;
  // FROM is step 1 (FROM scratch makes no vertex); the RUN steps print what they print as they run.
  const total = parsed.steps.length + (base === undefined ? 0 : 1);
  const first = base === undefined ? 1 : 2;
  const steps = parsed.steps.map((text, i) => {
    const isRun = /^RUN /.test(text);
    const logs = parsed === CANNED && isRun ? ['0.231 compiling', '0.874 built ./out/app'] : [];
    const ranFor = isRun ? '0.9s' : /^WORKDIR /.test(text) ? '0.0s' : '0.1s';
    return {...step(`[${first + i}/${total}] ${text}`, logs, ranFor), running: isRun};
  });
  const running = steps.findIndex(v => v.running);
  steps.forEach((v, i) => (v.running = i === (running >= 0 ? running : steps.length - 1)));
  const manifest = digest('manifest');
  const images = tags.map(normalizeTag);
  const exportLogs = [
    `exporting layers${warm ? '' : ' 0.1s'} done`,
    `exporting manifest sha256:${manifest} done`,
    `exporting config sha256:${digest('config')} done`,
    ...images.map(i => `naming to ${i} done`)
  ];
  if (exporter === 'registry' && images.length > 0) {
    exportLogs.push('pushing layers 0.4s done');
    exportLogs.push(...images.map(i => `pushing manifest for ${i}@sha256:${manifest} 0.1s done`));
  } else if (exporter === 'docker') {
    exportLogs.push('sending tarball 0.2s done');
  }
  return [
    {
      name: name(`[internal] load build definition from ${dockerfile}`),
      logs: ['transferring dockerfile: 187B done'],
      end: 'DONE 0.0s',
      head: true
    },
    ...(base === undefined
      ? []
      : [
          {
            name: name(`[internal] load metadata for ${base}`),
            logs: [],
            end: warm ? 'DONE 0.1s' : 'DONE 0.6s',
            head: true
          }
        ]),
    {
      name: name('[internal] load .dockerignore'),
      logs: ['transferring context: 2B done'],
      end: 'DONE 0.0s',
      head: true
    },
    ...(base === undefined
      ? []
      : [
          {
            name: name(`[1/${total}] FROM ${from}`),
            logs: [
              `resolve ${from} 0.0s done`,
              ...(warm
                ? []
                : [`sha256:${BASE_LAYER} 3.62MB / 3.62MB 0.1s done`, `extracting sha256:${BASE_LAYER} 0.1s done`])
            ],
            end: warm ? 'DONE 0.0s' : 'DONE 0.3s',
            head: true
          }
        ]),
    {
      name: name('[internal] load build context'),
      logs: [`transferring context: ${warm ? '64B' : '1.21kB'} done`],
      end: 'DONE 0.0s',
      head: true
    },
    ...steps,
    {
      name: name(exporter === 'docker' ? 'exporting to docker image format' : 'exporting to image'),
      logs: exportLogs,
      end: 'DONE 0.2s'
    }
  ];
}

/** `#n` lines of the vertices, numbered from `from`, each vertex followed by a blank line. */
function render(vertices, from) {
  return vertices
    .map((v, i) => [v.name, ...v.logs, ...(v.end ? [v.end] : [])].map(l => `#${from + i} ${l}\n`).join('') + '\n')
    .join('');
}

/**
 * The progress of a run after its `#0 building with` line, in three parts:
 * - head: the vertices printed before the build steps (definitions, metadata, context);
 * - body: the rest, steps and export, down to the last `DONE`;
 * - hung: what follows head in a build that goes silent: the steps before the running one, and the
 *   running RUN step's name and first log line (no ending: it never ended).
 */
function parts(vertices) {
  const headCount = vertices.filter(v => v.head).length;
  const head = vertices.filter(v => v.head);
  const rest = vertices.filter(v => !v.head);
  // The running step (a RUN; else the last step; else the export, of a Dockerfile without steps).
  const running = Math.max(
    0,
    rest.findIndex(v => v.running)
  );
  const before = rest.slice(0, running);
  const r = rest[running];
  const n = headCount + running + 1;
  return {
    head: '\n' + render(head, 1),
    body: render(rest, headCount + 1).replace(/\n$/, ''),
    hung: render(before, headCount + 1) + `#${n} ${r.name}\n#${n} 0.231 compiling\n`
  };
}

/**
 * `docker buildx build`. opts: {warm, dockerfile, tags, exporter, seed}.
 * @returns {{head: string, body: string, hung: string}}
 */
export function buildProgress(opts) {
  return parts(dockerfileVertices(opts));
}

/**
 * `docker buildx bake`. opts: {warm, files: [{name, size}], targets: {name: {dockerfile, tags, exporter}}, seed}.
 * One target: its vertices are not prefixed (as buildx does); several: prefixed, one after the other.
 * @returns {{head: string, body: string, hung: string}}
 */
export function bakeProgress(opts) {
  const names = Object.keys(opts.targets);
  const definitions = {
    name: '[internal] load local bake definitions',
    logs: opts.files.map(f => `reading ${f.name} ${f.size}B / ${f.size}B done`),
    end: 'DONE 0.0s',
    head: true
  };
  const perTarget = names.map(t =>
    dockerfileVertices({
      ...opts.targets[t],
      warm: opts.warm,
      seed: opts.seed,
      ...(names.length > 1 ? {target: t} : {})
    })
  );
  // The bake definitions, then every target's head, then every target's steps and export.
  const vertices = [
    definitions,
    ...perTarget.flatMap(vs => vs.filter(v => v.head)),
    ...perTarget.flatMap((vs, i) =>
      vs.filter(v => !v.head).map(v => (i === 0 || !v.running ? v : {...v, running: false}))
    )
  ];
  return parts(vertices);
}
