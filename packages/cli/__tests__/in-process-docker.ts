// An in-process stand-in for the few `docker buildx` calls of the builder commands (version, create, rm),
// injected as CliDeps.exec: it records every argv and keeps the builders buildx would know; any other call fails
// as unexpected, so a test sees it. The tests about the CLI use it; the recording fake docker
// (packages/emulator/fake-docker), a process of ~145 ms of CPU per call, stays in the few end-to-end tests of
// builder.test.ts and in bin.test.ts.
import type {Exec, ExecResult} from '@remote-builder-actions/core';

export interface InProcessBuilder {
  nodes: {name: string; endpoint: string}[];
  use: boolean;
}

const ok = (stdout = ''): ExecResult => ({exitCode: 0, stdout, stderr: ''});
const error = (message: string): ExecResult => ({exitCode: 1, stdout: '', stderr: `ERROR: ${message}\n`});

export class InProcessDocker implements Exec {
  /** The argv of every call (without `docker`). */
  readonly calls: string[][] = [];
  readonly builders = new Map<string, InProcessBuilder>();
  /** Subcommands (`version`, `create`, `rm`) that fail, as FAKE_DOCKER_FAIL makes the fake docker's. */
  readonly #fail: Set<string>;

  constructor(opts: {fail?: string[]} = {}) {
    this.#fail = new Set(opts.fail);
  }

  async run(command: string, args: string[]): Promise<ExecResult> {
    this.calls.push(args);
    const [group, sub] = args;
    if (command !== 'docker' || group !== 'buildx') return error(`unexpected call: ${command} ${args.join(' ')}`);
    if (this.#fail.has(sub ?? '')) return error(`in-process docker: ${sub} failed as requested`);
    const flag = (name: string): string | undefined => {
      const i = args.indexOf(name);
      return i >= 0 ? args[i + 1] : undefined;
    };
    switch (sub) {
      case 'version':
        return ok('github.com/docker/buildx v0.13.1 788433953af10f2a698f5c07611dcf2f5fcfcd9b\n');
      case 'create': {
        const name = flag('--name') as string;
        const node = {name: flag('--node') as string, endpoint: args.at(-1) as string};
        const known = this.builders.get(name);
        if (args.includes('--append')) {
          if (!known) return error(`no builder "${name}" found`);
          known.nodes.push(node);
        } else {
          if (known) return error(`existing instance for "${name}" but no append mode, specify the node name`);
          this.builders.set(name, {nodes: [node], use: args.includes('--use')});
        }
        return ok(`${name}\n`);
      }
      case 'rm': {
        const name = args[2] as string;
        if (!this.builders.delete(name)) return error(`no builder "${name}" found`);
        return ok();
      }
      default:
        return error(`unexpected call: docker ${args.join(' ')}`);
    }
  }
}
