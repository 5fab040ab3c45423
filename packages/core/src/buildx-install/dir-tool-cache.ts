import {chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import type {ToolCache} from './tool-cache.js';

/**
 * DirToolCache is a ToolCache on a plain folder, laid out as @actions/tool-cache lays out RUNNER_TOOL_CACHE
 * (`<root>/<tool>/<version>/<arch>/` plus a `<arch>.complete` marker), so both find what the other cached.
 * Unlike tool-cache's `find`, versions are matched exactly (no ranges).
 */
export class DirToolCache implements ToolCache {
  constructor(private readonly root: string) {}

  find(tool: string, version: string, arch: string): string {
    const dir = join(this.root, tool, version, arch);
    return existsSync(`${dir}.complete`) && existsSync(dir) ? dir : '';
  }

  async cacheFile(
    sourceFile: string,
    targetFile: string,
    tool: string,
    version: string,
    arch: string
  ): Promise<string> {
    const dir = join(this.root, tool, version, arch);
    rmSync(`${dir}.complete`, {force: true});
    rmSync(dir, {recursive: true, force: true});
    mkdirSync(dir, {recursive: true});
    const dest = join(dir, targetFile);
    copyFileSync(sourceFile, dest);
    chmodSync(dest, statSync(sourceFile).mode & 0o777);
    writeFileSync(`${dir}.complete`, '');
    return dir;
  }
}
