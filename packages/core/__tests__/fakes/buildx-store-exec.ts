// buildx's store behind a FakeExec: a `buildx create` or `rm` that the handler lets succeed changes buildx's
// records in `configDir` as buildx does (the fake docker's buildx-store.mjs), so a node that core writes into
// a record directly is one like those of `create --append`, and `rm` of a builder buildx has none of fails.
import {buildxRecords} from '../../../emulator/fake-docker/buildx-store.mjs';
import type {ExecCall, ExecHandler} from './fake-exec.js';
import {subcommand} from './fake-exec.js';

/** `handler`, with buildx's store kept in `configDir` for every create and rm it lets succeed. */
export function keepingBuildxStore(configDir: string, handler: ExecHandler): ExecHandler {
  const records = buildxRecords(configDir);
  return async (call: ExecCall) => {
    const res = await handler(call);
    if ((res.exitCode ?? 0) !== 0) return res;
    const args = call.args;
    const flag = (name: string): string | undefined => {
      const i = args.indexOf(name);
      return i >= 0 ? args[i + 1] : undefined;
    };
    const flags = (name: string): string[] => args.flatMap((a, i) => (a === name ? [args[i + 1] ?? ''] : []));
    let failed: string | undefined;
    if (subcommand(args) === 'create') {
      failed = records.create({
        name: flag('--name') ?? '',
        append: args.includes('--append'),
        node: flag('--node'),
        driver: flag('--driver'),
        endpoint: args.at(-1) ?? '',
        platforms: flags('--platform'),
        driverOpts: flags('--driver-opt')
      });
    } else if (subcommand(args) === 'rm') {
      const name = args.at(-1) ?? '';
      if (records.read(name)) records.remove(name);
      else failed = `no builder "${name}" found`;
    }
    return failed === undefined ? res : {...res, exitCode: 1, stderr: `ERROR: ${failed}\n`};
  };
}
