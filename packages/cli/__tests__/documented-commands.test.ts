// Every `remote-builder` command the READMEs show works as written, against the emulator: the commands are read
// from the `sh` code blocks of README.md, docs/*.md, packages/cli/README.md and packages/emulator/README.md, so a
// changed README is checked as it is. docker is the in-process stand-in (in-process-docker.ts) and the command of
// `builder run` a scripted one that must get the documented argv (fake-command.ts): the CLI is what is checked
// here; a real `builder run -- docker buildx build` with the recording fake docker is in builder.test.ts.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {mkdirSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {join} from 'node:path';
import {Emulator} from '@remote-builder-actions/emulator';
import {FakeCommand} from './fake-command.js';
import {cli, ROOT, sandbox, type Sandbox} from './helpers.js';
import {InProcessDocker} from './in-process-docker.js';

const READMES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter(f => f.endsWith('.md'))
    .map(f => `docs/${f}`),
  'packages/cli/README.md',
  'packages/emulator/README.md'
];

/** One documented CLI command: where it is, the line as written, and the argv after `remote-builder`. */
interface Documented {
  where: string;
  line: string;
  /** The shell variable its stdout is assigned to (`name=$(remote-builder builder up …)`). */
  assignsTo?: string;
  words: string[];
}

/** The lines of the `sh` (or `bash`, `shell`) code blocks, continuation lines joined, comments dropped. */
function shellLines(markdown: string): {line: string; at: number}[] {
  const out: {line: string; at: number}[] = [];
  const lines = markdown.split('\n');
  let inShell = false;
  let fenced = false;
  let pending = '';
  let pendingAt = 0;
  for (const [i, raw] of lines.entries()) {
    const fence = /^\s*```(\S*)/.exec(raw);
    if (fence) {
      if (!fenced) inShell = ['sh', 'bash', 'shell', 'console'].includes(fence[1] ?? '');
      fenced = !fenced;
      continue;
    }
    if (!fenced || !inShell) continue;
    const text = stripComment(raw);
    if (pending === '') pendingAt = i + 1;
    if (text.endsWith('\\')) {
      pending += `${text.slice(0, -1)} `;
      continue;
    }
    const line = (pending + text).trim();
    pending = '';
    if (line !== '') out.push({line, at: pendingAt});
  }
  return out;
}

/** The line without a trailing `# comment` (a `#` after a blank, outside quotes). */
function stripComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] as string))) {
      return line.slice(0, i).trimEnd();
    }
  }
  return line.trimEnd();
}

/** Shell words of `text`, with quotes removed; `$VAR` / `"$VAR"` are kept as `$VAR` for later substitution. */
function words(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2] ?? (m[3] as string));
  return out;
}

/** The CLI commands of a README: `[npx] remote-builder …` or `npx @remote-builder-actions/cli …`. */
function documentedCommands(where: string, markdown: string): Documented[] {
  const out: Documented[] = [];
  for (const {line, at} of shellLines(markdown)) {
    if (/^npm\s/.test(line)) continue; // installs
    const assign = /^(\w+)=\$\((.*)\)$/.exec(line);
    const body = assign ? (assign[2] as string) : line;
    const m = /(?:^|\s)(?:npx\s+)?(?:remote-builder|@remote-builder-actions\/cli)(?=\s|$)(.*)$/.exec(body);
    if (!m) continue;
    // A pipe into another tool (jq): the CLI's part is checked.
    const cli = (m[1] as string).split(/\s\|\s/)[0] as string;
    out.push({where: `${where}:${at}`, line, words: words(cli), ...(assign ? {assignsTo: assign[1]} : {})});
  }
  return out;
}

const KEY = 'rb_docs_key_5e6f7a';
let emu: Emulator;
let box: Sandbox;
const docker = new InProcessDocker();
const documented = READMES.flatMap(f => documentedCommands(f, readFileSync(join(ROOT, f), 'utf8')));

beforeAll(async () => {
  // The profiles and the stack the READMEs name.
  emu = await Emulator.start({
    profiles: [{name: 'default'}, {name: 'my-profile'}, {name: 'ci-large', architectures: ['amd64', 'arm64']}],
    apiKeys: [{key: KEY, scopes: ['ci', 'cache', 'builders']}],
    stacks: [{id: 'stk_docs', kind: 'ec2', name: 'docs'}]
  });
  box = sandbox(emu, KEY, {REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS: '3000'});
  // The user's project the commands run in.
  mkdirSync(join(box.dir, 'work'));
});
afterAll(async () => {
  await emu?.close();
  if (box) rmSync(box.dir, {recursive: true, force: true});
});

/** The id of the newest item that `remote-builder <list> --json` prints with `field` equal to `value`. */
async function idOf(list: string[], field: string, value: string): Promise<string> {
  const r = await cli([...list, '--json'], box.env, {exec: docker});
  const found = (JSON.parse(r.stdout) as Record<string, unknown>[]).filter(i => i[field] === value).pop();
  if (!found) throw new Error(`${list.join(' ')} shows no ${field} "${value}": ${r.stdout}${r.stderr}`);
  return found.id as string;
}

describe('the READMEs', () => {
  test('show the commands this test runs', () => {
    const lines = documented.map(d => d.words.slice(0, 2).join(' '));
    expect(lines).toEqual(
      expect.arrayContaining([
        'builder run',
        'builder up',
        'builder down',
        'profiles list',
        'stacks list',
        'images create',
        'runners create',
        'runners delete',
        '--help',
        '--version'
      ])
    );
  });

  test('every documented command works as written', async () => {
    const vars: Record<string, string> = {};
    // Placeholders of ids: resolved from what the earlier commands created.
    const placeholders: Record<string, () => Promise<string>> = {
      STACK_ID: async () => 'stk_docs',
      IMAGE_ID: () => idOf(['images', 'list'], 'alias', 'golden-2024'),
      RUNNER_ID: () => idOf(['runners', 'list'], 'name', 'linux-builders')
    };
    const failures: string[] = [];
    for (const d of documented) {
      const argv: string[] = [];
      for (const w of d.words) {
        const resolve = placeholders[w];
        argv.push(resolve ? await resolve() : w.replace(/\$(\w+)/g, (_, v: string) => vars[v] ?? `$${v}`));
      }
      const command = new FakeCommand({onStart: (_started, end) => end({code: 0, signal: null})});
      const r = await cli(argv, box.env, {cwd: join(box.dir, 'work'), exec: docker, spawn: command});
      if (r.code !== 0) failures.push(`${d.where}: ${d.line}\n  exit ${r.code}: ${r.stderr.trim()}`);
      // `builder run … -- COMMAND ARGS`: the command ran as written.
      const user = argv[0] === 'builder' && argv[1] === 'run' ? argv.slice(argv.indexOf('--') + 1) : [];
      const ran = command.started ? [command.started.command, ...command.started.args] : [];
      if (JSON.stringify(ran) !== JSON.stringify(user))
        failures.push(`${d.where}: ${d.line}\n  ran ${JSON.stringify(ran)}, not ${JSON.stringify(user)}`);
      if (d.assignsTo) vars[d.assignsTo] = r.stdout.trim();
    }
    expect(failures).toEqual([]);
    // Nothing the commands brought up is left billed, nor in buildx.
    expect(emu.assignedBuilders()).toEqual([]);
    expect(docker.builders.size).toBe(0);
    // Some twenty CLI runs one after the other (builder runs among them): 30 s ran out on a loaded machine.
  }, 120_000);
});
