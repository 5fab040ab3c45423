// The Dockerfile of a `buildx build`, as BuildKit's dockerfile frontend finds it (frontend/dockerui/config.go):
// --file (relative to the current directory, as buildx resolves it), else `Dockerfile` in the build context, else
// its lower-case `dockerfile`. A context without one fails as buildx prints it; one that is there gives the build
// its steps: the vertices BuildKit makes (FROM, then each RUN, COPY, ADD and WORKDIR), in order.
import {existsSync, readFileSync, statSync} from 'node:fs';
import {basename, join, resolve} from 'node:path';

/** Instructions BuildKit runs as a vertex of their own; the others (ENV, LABEL, CMD, …) only change the config. */
const STEPS = new Set(['RUN', 'COPY', 'ADD', 'WORKDIR']);

/**
 * The build context and Dockerfile of a `buildx build` argv (after `buildx build`): a remote context (a Git or
 * HTTP URL) or a Dockerfile from stdin is not read (undefined). Otherwise {name, path, text?}: text is undefined
 * when there is no such file.
 */
export function findDockerfile(argv, cwd = process.cwd()) {
  const context = argv[argv.length - 1];
  const file = valueOf(argv, '--file') ?? valueOf(argv, '-f');
  if (context === undefined || context === '-' || file === '-' || /^[a-z]+:\/\/|^git@|\.git(#|$)/i.test(context))
    return undefined;
  const candidates = file
    ? [resolve(cwd, file)]
    : [join(resolve(cwd, context), 'Dockerfile'), join(resolve(cwd, context), 'dockerfile')];
  const name = file ? basename(file) : 'Dockerfile';
  for (const path of candidates) {
    if (existsSync(path) && statSync(path).isFile()) return {name, path, text: readFileSync(path, 'utf8')};
  }
  return {name, path: candidates[0], text: undefined};
}

/** buildx's output for a Dockerfile that is not there (the frontend's error, wrapped by the solve and the build). */
export function missingDockerfileOutput(name) {
  return [
    `#1 [internal] load build definition from ${name}`,
    '#1 transferring dockerfile: 2B done',
    '#1 DONE 0.0s',
    `ERROR: failed to build: failed to solve: failed to read dockerfile: open ${name}: no such file or directory`
  ].join('\n');
}

/**
 * The base image and the build steps of a Dockerfile: {from: 'alpine:3.20' (null for scratch), steps: ['WORKDIR /src',
 * 'RUN make', …]}, line continuations joined, comments and parser directives left out. A multi-stage file gives the
 * first stage's base and every stage's steps.
 */
export function dockerfileSteps(text) {
  const lines = [];
  let pending = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    lines.push(`${pending}${line}`.trim());
    pending = '';
  }
  if (pending.trim() !== '') lines.push(pending.trim());
  let from;
  const steps = [];
  for (const line of lines) {
    const [word = '', ...rest] = line.split(/\s+/);
    const instruction = word.toUpperCase();
    const args = rest.join(' ');
    if (instruction === 'FROM' && from === undefined) {
      const image = rest.find(r => !r.startsWith('--')) ?? '';
      from = image.toLowerCase() === 'scratch' ? null : image;
    } else if (STEPS.has(instruction)) steps.push(`${instruction} ${args}`);
  }
  return {from: from ?? null, steps};
}

function valueOf(argv, name) {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  const inline = argv.find(a => a.startsWith(`${name}=`));
  return inline === undefined ? undefined : inline.slice(name.length + 1);
}
