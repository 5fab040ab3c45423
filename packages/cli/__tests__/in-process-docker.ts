// An in-process stand-in for the few `docker buildx` calls of the builder commands (version, create, rm),
// injected as CliDeps.exec: it records every argv and keeps the builders where buildx does, as the recording
// fake docker does (its buildx-store.mjs: buildx's records in the calls' buildx config dir), so a node written
// into a builder's record directly counts like one of `create --append`; any other call fails as unexpected,
// so a test sees it. The tests about the CLI use it; the recording fake docker (packages/emulator/fake-docker),
// a process of ~145 ms of CPU per call, stays in the few end-to-end tests of builder.test.ts and in bin.test.ts.
import type {Exec, ExecResult} from '@remote-builder-actions/core';
import {buildxConfigDir, buildxRecords} from '../../emulator/fake-docker/buildx-store.mjs';

export interface InProcessBuilder {
  nodes: {name: string; endpoint: string}[];
  use: boolean;
}

const ok = (stdout = ''): ExecResult => ({exitCode: 0, stdout, stderr: ''});
const error = (message: string): ExecResult => ({exitCode: 1, stdout: '', stderr: `ERROR: ${message}\n`});

export class InProcessDocker implements Exec {
  /** The argv of every call (without `docker`). */
  readonly calls: string[][] = [];
  /** Subcommands (`version`, `create`, `rm`) that fail, as FAKE_DOCKER_FAIL makes the fake docker's. */
  readonly #fail: Set<string>;
  /** buildx's config dir of the calls so far (the sandbox's), once one was made. */
  #configDir: string | undefined;
  /** Each builder's `--use`, which buildx keeps outside the builder's record. */
  readonly #use = new Map<string, boolean>();

  constructor(opts: {fail?: string[]} = {}) {
    this.#fail = new Set(opts.fail);
  }

  /** The builders in buildx's records, by name. */
  get builders(): Map<string, InProcessBuilder> {
    const records = this.#configDir ? buildxRecords(this.#configDir).list() : [];
    return new Map(
      records.map(r => [
        r.Name,
        {nodes: r.Nodes.map(n => ({name: n.Name, endpoint: n.Endpoint})), use: this.#use.get(r.Name) ?? false}
      ])
    );
  }

  async run(command: string, args: string[], opts: Parameters<Exec['run']>[2] = {}): Promise<ExecResult> {
    this.calls.push(args);
    const [group, sub] = args;
    if (command !== 'docker' || group !== 'buildx') return error(`unexpected call: ${command} ${args.join(' ')}`);
    if (this.#fail.has(sub ?? '')) return error(`in-process docker: ${sub} failed as requested`);
    const flag = (name: string): string | undefined => {
      const i = args.indexOf(name);
      return i >= 0 ? args[i + 1] : undefined;
    };
    const flags = (name: string): string[] => args.flatMap((a, i) => (a === name ? [args[i + 1] ?? ''] : []));
    // Where buildx keeps its records for this call's environment.
    this.#configDir = buildxConfigDir({...process.env, ...opts.env});
    const records = buildxRecords(this.#configDir);
    switch (sub) {
      case 'version':
        return ok('github.com/docker/buildx v0.13.1 788433953af10f2a698f5c07611dcf2f5fcfcd9b\n');
      case 'create': {
        const name = flag('--name') as string;
        const append = args.includes('--append');
        const failed = records.create({
          name,
          append,
          node: flag('--node'),
          driver: flag('--driver'),
          endpoint: args.at(-1) as string,
          platforms: flags('--platform'),
          driverOpts: flags('--driver-opt')
        });
        if (failed) return error(failed);
        if (!append) this.#use.set(name, args.includes('--use'));
        return ok(`${name}\n`);
      }
      case 'rm': {
        const name = args[2] as string;
        if (!records.read(name)) return error(`no builder "${name}" found`);
        records.remove(name);
        this.#use.delete(name);
        return ok();
      }
      default:
        return error(`unexpected call: docker ${args.join(' ')}`);
    }
  }
}
