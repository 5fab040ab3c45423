// buildx's own store, where the fake docker keeps its builders: each builder is the record buildx
// 0.13-0.36 keeps, `<config dir>/instances/<lower-cased name>`, the JSON of its store.NodeGroup
// ({Name, Driver, Nodes: [{Name, Endpoint, Platforms: [{architecture, os, variant?}] | null, DriverOpts, Flags,
// Files}], Dynamic}), written as buildx writes it (atomically, mode 0600, with activity/<name>), so a node
// added by editing that record is a node like any other. `create` follows builder.Create and
// NodeGroup.Update: node names lower-cased, platforms parsed and normalised as containerd does, the new
// node's platforms dropped from the others, a second node at a remote endpoint refused.
import {existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs';
import {homedir} from 'node:os';
import {join} from 'node:path';

/** store.ValidateName. */
export const NAME = /^[a-zA-Z][a-zA-Z0-9._-]*$/;
export const invalidName = name =>
  `invalid name ${name}, name needs to start with a letter and may not contain symbols, except ._-`;

/** buildx's config dir, as buildx finds it. */
export function buildxConfigDir(env = process.env) {
  return env.BUILDX_CONFIG || join(env.DOCKER_CONFIG || join(homedir(), '.docker'), 'buildx');
}

/** The records of buildx's store in `dir`. */
export function buildxRecords(dir) {
  const instances = join(dir, 'instances');
  const write = (sub, key, text) => {
    mkdirSync(join(dir, sub), {recursive: true, mode: 0o700});
    const temp = join(dir, sub, `.tmp-${key}${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}`);
    writeFileSync(temp, text, {mode: 0o600});
    renameSync(temp, join(dir, sub, key));
  };
  /** The record of builder `name`, or undefined. */
  const read = name => {
    const path = join(instances, name.toLowerCase());
    return NAME.test(name) && existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
  };
  return {
    read,
    /** Every record, by Name (store.Txn.List: a file whose name buildx refuses fails it). */
    list() {
      if (!existsSync(instances)) return [];
      const records = readdirSync(instances).map(f => {
        if (!NAME.test(f)) throw new Error(invalidName(f));
        return JSON.parse(readFileSync(join(instances, f), 'utf8'));
      });
      return records.sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
    },
    /**
     * `buildx create [--append]` of one node (`platforms` and `driverOpts`: every --platform and --driver-opt
     * value); an error message, or undefined once saved.
     */
    create({name, append, node, driver, endpoint, platforms, driverOpts}) {
      if (!NAME.test(name)) return invalidName(name);
      const current = read(name);
      if (append && !current) return `no builder "${name}" found`;
      if (!append && current) {
        return `existing instance for "${name}" but no append mode, specify the node name to make changes for existing instances`;
      }
      if (current && current.Driver !== driver) {
        return `existing instance for "${name}" but has mismatched driver "${current.Driver}"`;
      }
      const group = current ?? {Name: name, Driver: driver, Nodes: [], Dynamic: false};
      let parsed;
      try {
        const entries = platforms.flatMap(p => p.split(',')).filter(Boolean);
        parsed = {
          platforms: entries.length > 0 ? entries.map(parsePlatform) : null,
          driverOpts: driverOpts.length > 0 ? Object.assign({}, ...driverOpts.map(csvToMap)) : null
        };
      } catch (e) {
        return e.message;
      }
      const error = update(group, {node, endpoint, driver, ...parsed});
      if (error) return error;
      const key = name.toLowerCase();
      write('activity', key, new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
      write('instances', key, goJson(group));
      return undefined;
    },
    /** What store.Txn.Remove deletes. */
    remove(name) {
      const key = name.toLowerCase();
      for (const sub of ['instances', 'activity', 'refs']) rmSync(join(dir, sub, key), {recursive: true, force: true});
    }
  };
}

/** A record as the fake's builder: {nodes: [{node, endpoint, platforms: 'os/arch,…', driver, cacert, …}]}. */
export function fakeBuilder(record) {
  return {
    nodes: record.Nodes.map(n => ({
      node: n.Name,
      endpoint: n.Endpoint,
      platforms: (n.Platforms ?? []).map(formatPlatform).join(','),
      driver: record.Driver,
      ...n.DriverOpts
    }))
  };
}

/** NodeGroup.Update: appends the node, or updates the one of that name; then validateDuplicates. */
function update(group, {node, endpoint, driver, platforms, driverOpts}) {
  const remote = driver === 'remote';
  let i = group.Nodes.findIndex(n => n.Name === node);
  if (i >= 0) {
    const n = group.Nodes[i];
    group.Nodes[i] = {
      ...n,
      Endpoint: remote ? endpoint : n.Endpoint,
      Platforms: platforms ?? n.Platforms,
      DriverOpts: driverOpts ?? n.DriverOpts
    };
  } else {
    let name = node;
    for (let k = 0; name === undefined; k++) {
      if (!group.Nodes.some(n => n.Name === `${group.Name}${k}`)) name = `${group.Name}${k}`;
    }
    if (!NAME.test(name)) return invalidName(name);
    // A docker-container builder's nodes get the network.host entitlement (parseBuildkitdFlags).
    const flags = driver === 'docker-container' ? ['--allow-insecure-entitlement=network.host'] : null;
    group.Nodes.push({
      Name: name.toLowerCase(),
      Endpoint: endpoint,
      Platforms: platforms,
      DriverOpts: driverOpts,
      Flags: flags,
      Files: null
    });
    i = group.Nodes.length - 1;
  }
  // (The fake's local nodes all share one endpoint: only remote ones are told apart by theirs.)
  if (remote && group.Nodes.filter(n => n.Endpoint === endpoint).length > 1) {
    return `invalid duplicate endpoint ${endpoint}`;
  }
  const taken = new Set((group.Nodes[i].Platforms ?? []).map(formatPlatform));
  group.Nodes.forEach((n, j) => {
    if (j !== i) n.Platforms = (n.Platforms ?? []).filter(p => !taken.has(formatPlatform(p)));
  });
  return undefined;
}

/** containerd's platforms.Format. */
export function formatPlatform(p) {
  return [p.os, p.architecture, p.variant].filter(Boolean).join('/');
}

/** platformutil.Parse of one entry: containerd's Parse, then Normalize (a linux/amd64 host). */
export function parsePlatform(spec) {
  if (spec.toLowerCase() === 'local') return {architecture: 'amd64', os: 'linux'};
  const parts = spec.split('/');
  if (parts.length > 3 || parts.some(p => !/^[A-Za-z0-9_-]+$/.test(p))) {
    throw new Error(`"${spec}": cannot parse platform specifier`);
  }
  let os = normalizeOS(parts[0]);
  let [arch, variant] = normalizeArch(parts.length === 1 ? parts[0] : parts[1], parts[2] ?? '');
  if (parts.length === 1) {
    if (KNOWN_OS.has(os)) [arch, variant] = ['amd64', ''];
    else os = 'linux';
  }
  if (parts.length < 3 && arch === 'arm' && variant === 'v7') variant = '';
  if (parts.length === 3 && arch === 'arm64' && variant === '') variant = 'v8';
  [arch, variant] = normalizeArch(arch, variant);
  return variant ? {architecture: arch, os, variant} : {architecture: arch, os};
}

const KNOWN_OS = new Set(['aix', 'android', 'darwin', 'dragonfly', 'freebsd', 'illumos', 'ios', 'js', 'linux']);

function normalizeOS(os) {
  const lower = os.toLowerCase();
  return lower === 'macos' ? 'darwin' : lower;
}

function normalizeArch(arch, variant) {
  arch = arch.toLowerCase();
  variant = variant.toLowerCase();
  if (arch === 'i386') return ['386', ''];
  if (['x86_64', 'x86-64', 'amd64'].includes(arch)) return ['amd64', variant === 'v1' ? '' : variant];
  if (arch === 'aarch64' || arch === 'arm64') {
    if (['8', 'v8', 'v8.0'].includes(variant)) return ['arm64', ''];
    return ['arm64', ['9', '9.0', 'v9.0'].includes(variant) ? 'v9' : variant];
  }
  if (arch === 'armhf') return ['arm', 'v7'];
  if (arch === 'armel') return ['arm', 'v6'];
  if (arch === 'arm') {
    if (variant === '' || variant === '7') return ['arm', 'v7'];
    return ['arm', ['5', '6', '8'].includes(variant) ? `v${variant}` : variant];
  }
  return [arch, variant];
}

/** builder's csvToMap of one --driver-opt: a CSV record of k=v fields (quotes doubled inside quoted fields). */
function csvToMap(csv) {
  const fields = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i];
    if (quoted && c === '"' && csv[i + 1] === '"') field += csv[i++];
    else if (c === '"' && (quoted || field === '')) quoted = !quoted;
    else if (c === ',' && !quoted) {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return Object.fromEntries(
    fields.map(f => {
      const at = f.indexOf('=');
      if (at < 0) throw new Error(`invalid value "${f}", expecting k=v`);
      return [f.slice(0, at), f.slice(at + 1)];
    })
  );
}

/** json.Marshal's text: HTML characters escaped, map keys sorted (DriverOpts). */
function goJson(group) {
  const sorted = o => (o ? Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))) : o);
  const nodes = group.Nodes.map(n => ({...n, DriverOpts: sorted(n.DriverOpts)}));
  return JSON.stringify({...group, Nodes: nodes}).replace(
    /[<>&\u2028\u2029]/g,
    c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
  );
}
