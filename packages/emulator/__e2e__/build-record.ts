// The build record as an e2e test checks it: the step's log line saying what was exported (or why not), the
// artifact the step uploaded to the emulator's artifact service, read back as a `.dockerbuild`.
import {expect} from '@jest/globals';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {readDockerbuild, type Dockerbuild} from '../src/testing/dockerbuild-file.js';
import {printed, type E2eEmulator, type Workspace} from './e2e-env.js';
import type {ActionRunResult} from '../src/index.js';

/** The line of a step that exported its record: `Exported <name> (<n> bytes, <m> builds) in <t> ms`. */
const EXPORTED = /Exported (\S+\.dockerbuild) \((\d+) bytes, (\d+) builds\) in (\d+) ms/;

export interface UploadedRecord {
  name: string;
  sizeBytes: number;
  exportMs: number;
  record: Dockerbuild;
  /** When the artifact was created (emulator clock, epoch ms). */
  createdAt: number;
}

/** The record `main` exported and uploaded, read back from the emulator's artifact service. */
export function uploadedRecord(emu: E2eEmulator, main: ActionRunResult): UploadedRecord {
  const m = EXPORTED.exec(printed(main));
  if (!m) throw new Error(`the step exported no build record:\n${printed(main).slice(-3000)}`);
  const name = m[1] as string;
  const artifact = emu.artifacts.artifacts().find(a => a.finalized && a.name === name);
  expect(artifact?.bytes).toBeDefined();
  const dir = mkdtempSync(join(tmpdir(), 'rba-e2e-record-'));
  try {
    const file = join(dir, name);
    writeFileSync(file, artifact?.bytes as Buffer);
    return {
      name,
      sizeBytes: Number(m[2]),
      exportMs: Number(m[4]),
      record: readDockerbuild(file),
      createdAt: artifact?.createdAt as number
    };
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}

/** The ref of each record in the file (BuildKit's BuildHistoryRecord `Ref`, as buildx writes it). */
export function recordRefs(r: UploadedRecord): string[] {
  return r.record.records.map(x => x['Ref'] as string);
}

/**
 * What buildx's own `history export` writes of the same build, from the same BuildKit (the e2e dockerd's,
 * which the emulator's builders front): read through the docker driver's `default` builder.
 */
export async function buildxExport(ws: Workspace, refs: string[], finalize: boolean): Promise<Dockerbuild> {
  const dir = mkdtempSync(join(tmpdir(), 'rba-e2e-buildx-record-'));
  try {
    const file = join(dir, 'buildx.dockerbuild');
    await ws.dockerOk([
      'buildx',
      'history',
      'export',
      '--builder',
      'default',
      ...(finalize ? ['--finalize'] : []),
      '-o',
      file,
      ...refs
    ]);
    return readDockerbuild(file);
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}

/**
 * The step's record file holds what buildx's holds: the same layers (the sanitised trace, the logs, the
 * attestations and results, byte for byte) and the same history record, but for the local state, which buildx
 * keeps per builder (ours was the step's builder; buildx's export here went through `default`, which has none).
 */
export function expectSameRecord(ours: Dockerbuild, buildx: Dockerbuild): void {
  // Each record's layers (digest and size), through the index of a file of several records.
  const layers = (d: Dockerbuild): unknown[] => {
    const blob = (digest: string): {manifests?: {digest: string}[]; layers?: {digest: string}[]} =>
      JSON.parse(d.files.get(`blobs/sha256/${digest.slice(7)}`)?.toString() ?? '{}');
    const walk = (digest: string): unknown[] => {
      const b = blob(digest);
      if (b.manifests) return b.manifests.flatMap(m => walk(m.digest));
      return [b.layers?.map(l => [l.digest, d.files.get(`blobs/sha256/${l.digest.slice(7)}`)?.length])];
    };
    return d.index.manifests.flatMap(m => walk(m.digest));
  };
  expect(layers(ours)).toEqual(layers(buildx));
  const withoutState = (r: Record<string, unknown>): Record<string, unknown> => {
    const {localState: _l, stateGroup: _g, ...rest} = r;
    return rest;
  };
  expect(ours.records.map(withoutState)).toEqual(buildx.records.map(withoutState));
}
