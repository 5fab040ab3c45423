/** `docker buildx` argv (without `docker`) of the build record's commands, built as data before they run. */

export interface HistoryExportArgsOpts {
  builder: string;
  /** The `.dockerbuild` file to write. */
  output: string;
  /** History refs (bare BuildKit refs: buildx finds each on the builder's nodes). */
  refs: string[];
  /** `--finalize` (buildx >= 0.24). */
  finalize: boolean;
}

/** `buildx history export --builder <b> --output <file> [--finalize] <refs…>`: the records of `refs` in one file. */
export function historyExportArgs(opts: HistoryExportArgsOpts): string[] {
  return [
    'buildx',
    'history',
    'export',
    '--builder',
    opts.builder,
    '--output',
    opts.output,
    ...(opts.finalize ? ['--finalize'] : []),
    ...opts.refs
  ];
}
