// The plain progress output (`--progress=plain`, what buildx prints to stderr when stderr is not a terminal)
// of the fake docker's builds and bakes, in the shape of the real captures in
// packages/core/__tests__/docker/fixtures/: numbered vertices separated by blank lines, each its name, its
// log lines and how it ended (`DONE 0.1s`, or `CACHED` for a build step BuildKit answered from its cache).
// Every build is the same small Dockerfile: FROM, then three build steps (WORKDIR, COPY, RUN), then the
// export. On a cold builder the steps run (`DONE`); on a warm one they are `CACHED` (and FROM prints
// `DONE 0.0s`, as dockerd's BuildKit does for an image it has). A bake of several targets prefixes every
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

/**
 * The vertices of one Dockerfile build, in the order buildx prints them.
 * opts: {warm, dockerfile, tags, exporter: 'registry' | 'docker' | undefined, seed, target (bake of several targets)}
 */
function dockerfileVertices(opts) {
  const {warm, dockerfile = 'Dockerfile', tags = [], exporter, seed = '', target} = opts;
  const digest = what => sha(seed, target ?? '', what);
  const name = n => {
    if (target === undefined) return n;
    if (n.startsWith('[internal] ')) return `[${target} internal] ${n.slice('[internal] '.length)}`;
    if (n.startsWith('[')) return `[${target} ${n.slice(1)}`;
    return `[${target}] ${n}`;
  };
  const step = (n, logs, ranFor) => ({name: name(n), logs: warm ? [] : logs, end: warm ? 'CACHED' : `DONE ${ranFor}`});
  const from = `${BASE}@sha256:${BASE_DIGEST}`;
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
    {name: name(`[internal] load metadata for ${BASE}`), logs: [], end: warm ? 'DONE 0.1s' : 'DONE 0.6s', head: true},
    {
      name: name('[internal] load .dockerignore'),
      logs: ['transferring context: 2B done'],
      end: 'DONE 0.0s',
      head: true
    },
    {
      name: name(`[1/4] FROM ${from}`),
      logs: [
        `resolve ${from} 0.0s done`,
        ...(warm ? [] : [`sha256:${BASE_LAYER} 3.62MB / 3.62MB 0.1s done`, `extracting sha256:${BASE_LAYER} 0.1s done`])
      ],
      end: warm ? 'DONE 0.0s' : 'DONE 0.3s',
      head: true
    },
    {
      name: name('[internal] load build context'),
      logs: [`transferring context: ${warm ? '64B' : '1.21kB'} done`],
      end: 'DONE 0.0s',
      head: true
    },
    step('[2/4] WORKDIR /src', [], '0.0s'),
    step('[3/4] COPY . .', [], '0.1s'),
    {...step('[4/4] RUN ./build.sh', ['0.231 compiling', '0.874 built ./out/app'], '0.9s'), running: true},
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
  const running = rest.findIndex(v => v.running);
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
