// The runner's tool cache (@actions/tool-cache) behind core's ToolCache seam; only adapters import @actions/*.
import * as tc from '@actions/tool-cache';
import type {ToolCache} from '../buildx-install/tool-cache.js';

/** ToolCache on RUNNER_TOOL_CACHE, as every official setup-* action uses it. */
export const actionsToolCache: ToolCache = {
  find: (tool, version, arch) => tc.find(tool, version, arch),
  cacheFile: (sourceFile, targetFile, tool, version, arch) => tc.cacheFile(sourceFile, targetFile, tool, version, arch)
};
