import {positionals, str} from '../args.js';
import type {Command, CommandGroup} from '../command.js';
import {ExitCode} from '../exit-codes.js';
import {cell, formatTable} from '../output.js';

const list: Command = {
  name: 'list',
  summary: 'list the stacks (provider environments) runners and images live in',
  help: `Usage: remote-builder stacks list [--kind KIND]

Lists the stacks. A stack's id is a runner's --provider-id and an image's --stack-id.
The API key needs the "ci" and "cache" scopes.

Options:
  --kind KIND        only stacks of this kind, e.g. ec2`,
  options: {kind: {type: 'string'}},
  async run(ctx, args) {
    positionals(args, [], 'stacks list');
    const kind = str(args.values, 'kind');
    const stacks = await ctx.api().ci.listStacks(kind === undefined ? {} : {kind}, {signal: ctx.signal});
    if (ctx.json) {
      ctx.outJson(stacks);
    } else if (stacks.length === 0) {
      ctx.logger.info(kind === undefined ? 'No stacks.' : `No stacks of kind "${kind}".`);
    } else {
      ctx.out(formatTable([['ID', 'KIND', 'NAME'], ...stacks.map(s => [s.id, cell(s.kind), cell(s.name)])]));
    }
    return ExitCode.Ok;
  }
};

/** `remote-builder stacks …` */
export const stacksGroup: CommandGroup = {name: 'stacks', summary: 'list stacks', commands: [list]};
