import {describe, expect, test} from '@jest/globals';
import {
  hasAttestationType,
  hasDockerExporter,
  hasExporterType,
  hasLocalExporter,
  hasTarExporter,
  resolveAttestationAttrs,
  resolveProvenanceAttrs,
  resolveProvenanceInput
} from '../../src/docker/attestations.js';

const RUN = 'https://github.com/o/r/actions/runs/1/attempts/1';

describe('provenance', () => {
  // prettier-ignore
  test.each([
    [1, '', ''],
    [2, 'true', `builder-id=${RUN}`],
    [3, 'TRUE', `builder-id=${RUN}`],
    [4, 'false', 'false'],
    [5, 'mode=max', `mode=max,builder-id=${RUN}`],
    [6, 'builder-id=foo', 'builder-id=foo'],
    [7, 'mode=min,inline-only=true', `mode=min,inline-only=true,builder-id=${RUN}`],
    [8, ' builder-id =foo,mode=max', ' builder-id =foo,mode=max']
  ])('[%d] provenance input %j', (_n, input, expected) => {
    expect(resolveProvenanceInput(input, RUN)).toBe(expected);
  });

  test('empty attributes get a builder id', () => {
    expect(resolveProvenanceAttrs('', RUN)).toBe(`builder-id=${RUN}`);
  });
});

describe('attestation attributes', () => {
  // prettier-ignore
  test.each([
    [1, 'type=sbom,true', 'type=sbom,disabled=false'],
    [2, 'type=provenance,false', 'type=provenance,disabled=true'],
    [3, 'type=sbom,generator=image', 'type=sbom,generator=image'],
    [4, 'type=provenance, 1', 'type=provenance,disabled=false']
  ])('[%d] %j', (_n, input, expected) => {
    expect(resolveAttestationAttrs(input)).toBe(expected);
  });

  test('types', () => {
    expect(hasAttestationType('provenance', 'type=provenance,mode=min')).toBe(true);
    expect(hasAttestationType('sbom', 'type=provenance,mode=min')).toBe(false);
    expect(hasAttestationType('sbom', ' type = sbom ')).toBe(true);
  });
});

describe('exporters', () => {
  // prettier-ignore
  test.each([
    [1, 'local', ['type=local,dest=./out'], true],
    [2, 'local', ['.'], true],
    [3, 'tar', ['type=tar,dest=out.tar'], true],
    [4, 'local', ['type=image,"name=a:1,a:2",push=true'], false],
    [5, 'docker', ['type=registry', 'type=docker'], true],
    [6, 'docker', [], false]
  ])('[%d] %s in %j', (_n, type, exporters, expected) => {
    expect(hasExporterType(type, exporters)).toBe(expected);
  });

  test('shorthands', () => {
    expect(hasLocalExporter(['./dir'])).toBe(true);
    expect(hasTarExporter(['type=local,dest=x'])).toBe(false);
    expect(hasDockerExporter([], true)).toBe(true);
    expect(hasDockerExporter(['type=docker,name=x'], false)).toBe(true);
  });
});
