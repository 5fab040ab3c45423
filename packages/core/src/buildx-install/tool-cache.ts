/**
 * ToolCache is the runner's tool cache (`$RUNNER_TOOL_CACHE/<tool>/<version>/<arch>`): what the installer needs
 * of @actions/tool-cache. The actions inject `actionsToolCache` (core/src/adapters/tool-cache.ts); the CLI and
 * tests can use DirToolCache, the same layout on a plain folder.
 */
export interface ToolCache {
  /** The folder of a cached, complete tool version, or '' when there is none. */
  find(tool: string, version: string, arch: string): string;
  /** Copies `sourceFile` into the cache as `targetFile` and marks the version complete; resolves the folder. */
  cacheFile(sourceFile: string, targetFile: string, tool: string, version: string, arch: string): Promise<string>;
}
