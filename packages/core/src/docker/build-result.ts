import {chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

/** The metadata buildx writes with --metadata-file; keys are not fixed (`containerimage.digest`, …). */
export type BuildMetadata = Record<string, unknown>;

/** What a build produced, read the way docker's actions read it. */
export interface BuildResult {
  /** Trimmed content of the --iidfile, when the file exists. */
  imageId?: string;
  /** Parsed --metadata-file, when it exists and is not `null`. */
  metadata?: BuildMetadata;
  /** `containerimage.digest` of the metadata. */
  digest?: string;
}

/**
 * BuildFiles is the private folder (0700, under RUNNER_TEMP) of one build: the --iidfile, the
 * --metadata-file and the secret files. Removing it removes every secret written for the build.
 */
export class BuildFiles {
  readonly dir: string;

  private constructor(dir: string) {
    this.dir = dir;
  }

  /** Creates `<root>/docker-build-XXXXXX` (mode 0700); root defaults to the OS temp dir. */
  static create(root?: string, prefix = 'docker-build-'): BuildFiles {
    const base = root && root !== '' ? root : tmpdir();
    mkdirSync(base, {recursive: true});
    const dir = mkdtempSync(join(base, prefix));
    chmodSync(dir, 0o700);
    return new BuildFiles(dir);
  }

  /** Uses an existing folder (tests). */
  static at(dir: string): BuildFiles {
    return new BuildFiles(dir);
  }

  get imageIdFile(): string {
    return join(this.dir, 'iidfile.txt');
  }

  get metadataFile(): string {
    return join(this.dir, 'metadata.json');
  }

  /** Reads the image id, the metadata and the digest the build left behind. */
  read(): BuildResult {
    return readBuildResult(this.imageIdFile, this.metadataFile);
  }

  remove(): void {
    rmSync(this.dir, {recursive: true, force: true});
  }

  /** Removes everything in the folder but the files named in `keep` (left for post, which removes the folder). */
  removeExcept(keep: readonly string[]): void {
    if (!existsSync(this.dir)) return;
    for (const name of readdirSync(this.dir)) {
      if (!keep.includes(name)) rmSync(join(this.dir, name), {recursive: true, force: true});
    }
  }
}

/**
 * docker's Build.resolveImageID / resolveMetadata / resolveDigest: a missing file means no value, a
 * metadata file holding `null` means no metadata. Malformed metadata throws, naming the file.
 */
export function readBuildResult(imageIdFile: string, metadataFile: string): BuildResult {
  const result: BuildResult = {};
  if (existsSync(imageIdFile)) {
    const id = readFileSync(imageIdFile, 'utf8').trim();
    if (id !== '') result.imageId = id;
  }
  if (existsSync(metadataFile)) {
    const text = readFileSync(metadataFile, 'utf8').trim();
    if (text !== '' && text !== 'null') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        throw new Error(`the build metadata in ${metadataFile} is not JSON: ${(e as Error).message}`);
      }
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        result.metadata = parsed as BuildMetadata;
        const digest = result.metadata['containerimage.digest'];
        if (typeof digest === 'string' && digest !== '') result.digest = digest;
      }
    }
  }
  return result;
}

/** The `metadata` output: the metadata as indented JSON, as docker's action prints and sets it. */
export function formatMetadata(metadata: BuildMetadata): string {
  return JSON.stringify(metadata, null, 2);
}
