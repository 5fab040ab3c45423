// `docker buildx bake` for the recording fake docker: reads the bake files (JSON, or the HCL subset bake
// files use: blocks, strings, numbers, booleans, lists and maps; no variables or functions), resolves the
// requested targets and groups (default: "default") with `inherits`, applies --set/--load/--push/
// --provenance/--sbom, and prints the definition in docker's `--print` shape {"group":{...},"target":{...}}.
// A remote definition (an URL as first argument) is read from $FAKE_DOCKER_REMOTE_DIR, else the cwd.
import {existsSync, readFileSync} from 'node:fs';
import {join, resolve} from 'node:path';

const VALUE_FLAGS = new Set([
  '--file',
  '-f',
  '--set',
  '--metadata-file',
  '--builder',
  '--allow',
  '--call',
  '--provenance',
  '--sbom',
  '--progress',
  '--var'
]);
const DEFAULT_FILES = ['docker-bake.json', 'docker-bake.hcl', 'docker-bake.override.json', 'docker-bake.override.hcl'];
const LIST_KEYS = new Set([
  'tags',
  'output',
  'attest',
  'cache-from',
  'cache-to',
  'secret',
  'ssh',
  'platforms',
  'entitlements'
]);

/** Splits bake argv (after `buildx bake`) into flags and positionals. */
export function parseBakeArgv(argv) {
  const opts = {files: [], set: [], allow: [], targets: [], remote: undefined, print: false, load: false, push: false};
  const positionals = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (VALUE_FLAGS.has(a)) {
      const v = argv[++i];
      if (a === '--file' || a === '-f') opts.files.push(v);
      else if (a === '--set') opts.set.push(v);
      else if (a === '--allow') opts.allow.push(v);
      else opts[a.slice(2)] = v;
    } else if (a === '--print') opts.print = true;
    else if (a === '--load') opts.load = true;
    else if (a === '--push') opts.push = true;
    else if (a.startsWith('-')) opts[a.replace(/^-+/, '')] = true;
    else positionals.push(a);
  }
  if (positionals.length > 0 && isRemote(positionals[0])) opts.remote = positionals.shift();
  opts.targets = positionals.length > 0 ? positionals : ['default'];
  return opts;
}

function isRemote(s) {
  return /^(https?:\/\/|git:\/\/|github\.com\/|git@)/.test(s);
}

/** The bake files a run reads: --file ones, else the default names present. Paths, maybe missing. */
export function bakeFiles(opts, cwd) {
  const base = opts.remote ? process.env.FAKE_DOCKER_REMOTE_DIR || cwd : cwd;
  const files = opts.files.map(f => resolve(base, f));
  return files.length > 0 ? files : DEFAULT_FILES.map(f => join(base, f)).filter(f => existsSync(f));
}

/** The resolved definition, or throws an Error with buildx-like text. */
export function resolveBake(opts, cwd) {
  const files = bakeFiles(opts, cwd);
  if (files.length === 0) throw new Error(`couldn't find a bake definition to use`);
  const config = {group: {}, target: {}};
  for (const file of files) {
    if (!existsSync(file)) throw new Error(`open ${file}: no such file or directory`);
    const text = readFileSync(file, 'utf8');
    const parsed = file.endsWith('.json') ? JSON.parse(text) : parseHcl(text, file);
    for (const kind of ['group', 'target']) {
      for (const [name, body] of Object.entries(parsed[kind] || {})) {
        config[kind][name] = {...(config[kind][name] || {}), ...body};
      }
    }
  }

  const groups = {};
  const names = [];
  const visit = (name, seen) => {
    if (seen.has(name)) throw new Error(`cycle in group ${name}`);
    if (config.group[name]) {
      groups[name] = {targets: [...(config.group[name].targets || [])]};
      for (const t of config.group[name].targets || []) visit(t, new Set([...seen, name]));
    } else if (config.target[name]) {
      if (!names.includes(name)) names.push(name);
    } else {
      throw new Error(`failed to find target ${name}`);
    }
  };
  for (const t of opts.targets) visit(t, new Set());
  if (!groups.default) groups.default = {targets: [...opts.targets]};

  const target = {};
  for (const name of [...names].sort()) {
    const t = flatten(config.target, name, new Set());
    for (const s of opts.set) applySet(t, name, s);
    if (opts.load) t.output = ['type=docker'];
    if (opts.push) t.output = ['type=registry'];
    if (opts.provenance) setAttest(t, 'provenance', opts.provenance);
    if (opts.sbom) setAttest(t, 'sbom', opts.sbom);
    if (opts.call) t.call = opts.call;
    t.context ??= '.';
    t.dockerfile ??= 'Dockerfile';
    if (t.attest) t.attest = t.attest.map(attestObject);
    target[name] = t;
  }
  return {group: groups, target};
}

function flatten(targets, name, seen) {
  if (seen.has(name)) throw new Error(`inheritance cycle at ${name}`);
  const own = targets[name];
  if (!own) throw new Error(`failed to find target ${name}`);
  let out = {};
  for (const parent of own.inherits || []) out = {...out, ...flatten(targets, parent, new Set([...seen, name]))};
  const {inherits: _inherits, ...rest} = own;
  return JSON.parse(JSON.stringify({...out, ...rest}));
}

function applySet(t, name, s) {
  const eq = s.indexOf('=');
  if (eq < 0) throw new Error(`invalid value ${s}, expecting pattern.key=value`);
  const [pattern, ...keyParts] = s.slice(0, eq).split('.');
  const value = s.slice(eq + 1);
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`
  );
  if (!re.test(name)) return;
  let key = keyParts.join('.');
  if (key === 'platform') key = 'platforms';
  if (key.startsWith('args.') || key.startsWith('labels.')) {
    const [field, ...sub] = key.split('.');
    t[field] = {...(t[field] || {}), [sub.join('.')]: value};
  } else if (key === 'platforms') {
    t.platforms = value
      .split(',')
      .map(p => p.trim())
      .filter(Boolean);
  } else if (LIST_KEYS.has(key)) {
    t[key] = [value];
  } else if (key === 'no-cache' || key === 'pull') {
    t[key] = value === 'true';
  } else {
    t[key] = value;
  }
}

function setAttest(t, type, value) {
  const rest = (t.attest || []).filter(a => attestObject(a).type !== type);
  t.attest = [...rest, value === 'false' ? `type=${type},disabled=true` : `type=${type},${value}`];
}

function attestObject(a) {
  if (typeof a !== 'string') return a;
  const out = {};
  for (const field of a.split(',')) {
    const eq = field.indexOf('=');
    if (eq > 0) out[field.slice(0, eq).trim()] = field.slice(eq + 1).trim();
  }
  return out;
}

/** The HCL subset of bake files → {group: {...}, target: {...}}. */
export function parseHcl(text, file = 'docker-bake.hcl') {
  const tokens = tokenize(text, file);
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => tokens[pos++];
  const fail = msg => {
    const t = peek();
    throw new Error(`${file}:${t ? t.line : 'EOF'}: ${msg}`);
  };
  const expect = type => {
    const t = next();
    if (!t || t.type !== type) {
      pos--;
      fail(`expected ${type}`);
    }
    return t;
  };
  const value = () => {
    const t = next();
    if (!t) fail('unexpected end of file');
    if (t.type === 'string' || t.type === 'number') return t.value;
    if (t.type === 'ident') {
      if (t.value === 'true' || t.value === 'false') return t.value === 'true';
      if (t.value === 'null') return null;
      pos--;
      fail(`variables and functions are not supported by the fake docker (${t.value})`);
    }
    if (t.type === '[') {
      const list = [];
      while (peek() && peek().type !== ']') {
        list.push(value());
        if (peek() && peek().type === ',') next();
      }
      expect(']');
      return list;
    }
    if (t.type === '{') {
      const obj = {};
      while (peek() && peek().type !== '}') {
        const k = next();
        if (k.type !== 'ident' && k.type !== 'string') fail('expected a key');
        const sep = next();
        if (sep.type !== '=' && sep.type !== ':') fail('expected = or :');
        obj[k.value] = value();
        if (peek() && peek().type === ',') next();
      }
      expect('}');
      return obj;
    }
    pos--;
    return fail(`unexpected ${t.type}`);
  };
  const body = () => {
    const attrs = {};
    const blocks = [];
    while (peek() && peek().type !== '}') {
      const name = expect('ident').value;
      if (peek() && peek().type === '=') {
        next();
        attrs[name] = value();
        continue;
      }
      const labels = [];
      while (peek() && peek().type === 'string') labels.push(next().value);
      expect('{');
      const inner = body();
      expect('}');
      blocks.push({type: name, labels, attrs: inner.attrs});
    }
    return {attrs, blocks};
  };
  const root = body();
  if (pos < tokens.length) fail('unexpected }');
  const out = {group: {}, target: {}};
  for (const b of root.blocks) {
    if ((b.type === 'group' || b.type === 'target') && b.labels.length === 1) {
      out[b.type][b.labels[0]] = {...(out[b.type][b.labels[0]] || {}), ...b.attrs};
    }
  }
  return out;
}

function tokenize(text, file) {
  const tokens = [];
  let i = 0;
  let line = 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new Error(`${file}:${line}: unclosed comment`);
      line += text.slice(i, end).split('\n').length - 1;
      i = end + 2;
    } else if (c === '"') {
      let s = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') {
          const e = text[i + 1];
          s += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          i += 2;
        } else s += text[i++];
      }
      if (text[i] !== '"') throw new Error(`${file}:${line}: unclosed string`);
      i++;
      tokens.push({type: 'string', value: s, line});
    } else if ('{}[]=,:'.includes(c)) {
      tokens.push({type: c, line});
      i++;
    } else if (/[0-9-]/.test(c)) {
      const m = /^-?\d+(\.\d+)?/.exec(text.slice(i));
      if (!m) throw new Error(`${file}:${line}: unexpected ${c}`);
      tokens.push({type: 'number', value: Number(m[0]), line});
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i));
      tokens.push({type: 'ident', value: m[0], line});
      i += m[0].length;
    } else {
      throw new Error(`${file}:${line}: unexpected ${c}`);
    }
  }
  return tokens;
}
