import {parseInputList, type InputListOpts} from '../docker/input-list.js';
import {Env} from '../inputs.js';

/** An input as docker's summary shows it: a value, or a list's items. */
export type BuildInputValue = string | string[];

/** The step's inputs for docker's "Build inputs" section (secret values already reduced to their keys). */
export type BuildInputs = Record<string, BuildInputValue>;

/** How an action's inputs are shown. */
export interface SummaryInputsSpec {
  /** Every input of the action, in the order to show them. */
  names: readonly string[];
  /** List inputs and how the action splits them (docker shows a list item by item). */
  lists?: Readonly<Record<string, InputListOpts>>;
  /** Inputs whose values are secrets: never shown (the API key, github-token). */
  hidden: readonly string[];
  /** `KEY=value` list inputs holding secrets (`secrets`): only the keys are shown, as docker does. */
  secretKeys?: readonly string[];
}

interface InputReader {
  getInput(name: string): string;
  env: NodeJS.ProcessEnv;
}

/**
 * The inputs as docker's post step reports them (`setSummaryInputs`): an empty or `false` input is left out,
 * a list is shown item by item, `secrets` only by their keys, the API key and github-token never. Read in post
 * (the runner sets INPUT_* for post too), so nothing is saved in the size-limited step state, and a bad input
 * that failed main is still shown as given. Any secret value found in another input (the API key pasted in
 * `build-args`) is replaced with `***`.
 */
export function readSummaryInputs(io: InputReader, spec: SummaryInputsSpec): BuildInputs {
  const secrets = [
    ...spec.hidden.map(name => io.getInput(name)),
    io.env[Env.ApiKey] ?? '',
    io.env[Env.RunnerToken] ?? ''
  ]
    .map(s => s.trim())
    .filter(s => s.length >= 4);
  const scrub = (s: string): string => secrets.reduce((out, secret) => out.split(secret).join('***'), s);
  const out: BuildInputs = {};
  for (const name of spec.names) {
    if (spec.hidden.includes(name)) continue;
    const raw = io.getInput(name);
    if (raw === '' || raw === 'false') continue;
    if (spec.secretKeys?.includes(name)) {
      const keys = secretKeys(raw);
      if (keys.length > 0) out[name] = keys.map(scrub);
      continue;
    }
    const listOpts = spec.lists?.[name];
    const value = listOpts ? listOrRaw(raw, listOpts) : raw;
    out[name] = typeof value === 'string' ? scrub(value) : value.map(scrub);
  }
  return out;
}

/** docker's `Build.parseSecretKvp` key of each `KEY=value` item; an item that cannot be read shows nothing. */
function secretKeys(raw: string): string[] {
  let items: string[];
  try {
    items = parseInputList(raw, {ignoreComma: true, trimWhitespace: false});
  } catch {
    return [];
  }
  return items.flatMap(item => {
    const at = item.indexOf('=');
    const key = at > 0 ? item.slice(0, at).trim() : '';
    return key !== '' && !/\s/.test(key) ? [key] : [];
  });
}

function listOrRaw(raw: string, opts: InputListOpts): BuildInputValue {
  try {
    return parseInputList(raw, opts);
  } catch {
    // Unparseable (the step failed on it): shown as given.
    return raw;
  }
}

/** A scalar as YAML: plain when that reads back as the same string, else double-quoted (JSON is valid YAML). */
function yamlScalar(s: string): string {
  const plain =
    /^[A-Za-z0-9_./~$^(][^\n]*$/.test(s) &&
    !/: |\s#|:$|\s$|\t/.test(s) &&
    !/^(true|false|yes|no|on|off|null|~|y|n)$/i.test(s) &&
    !/^[-+]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(s);
  return plain ? s : JSON.stringify(s);
}

/** The inputs as YAML, as docker's summary dumps them (`js-yaml` dump, indent 2): one key a line, lists as `- item`. */
export function buildInputsYaml(inputs: BuildInputs): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(inputs)) {
    if (typeof value === 'string') {
      lines.push(`${yamlScalar(key)}: ${value === 'true' ? 'true' : yamlScalar(value)}`);
    } else {
      lines.push(`${yamlScalar(key)}:`, ...value.map(item => `  - ${yamlScalar(item)}`));
    }
  }
  return lines.join('\n');
}
