import {describe, expect, test} from '@jest/globals';
import {parseBuilderSize, readBuilderSize} from '../../src/billing/builder-size.js';

describe('parseBuilderSize', () => {
  // prettier-ignore
  test.each([
    ['16x32', '16x32'],
    ['32X64', '32x64'],
    [' 64 x 128 ', '64x128'],
    ['192x384', '192x384'],
    ['32 vCPU', '32x64'],
    ['96vcpu', '96x192'],
    ['16 cpus', '16x32'],
    ['64 cores', '64x128'],
    ['32vcpu-64gb', '32x64'],
    ['32 vCPU, 64 GB RAM, 200 GB disk', '32x64'],
    ['16 vCPU, 32 GB RAM, 100 GB disk', '16x32'],
    ['192 vCPU / 384 GiB memory', '192x384'],
    ['64 GB RAM + 32 vCPU', '32x64'],
    ['96 vCPU, 600 GB disk', '96x192'],
    ['64 vCPU 128g', '64x128']
  ])('[%#] %j → %j', (text, size) => {
    expect(parseBuilderSize(text)).toBe(size);
  });

  // prettier-ignore
  test.each([
    ['empty', ''],
    ['a size the table does not have', '8x16'],
    ['vCPU and RAM from different rows', '32x128'],
    ['vCPU not in the table', '8 vCPU'],
    ['RAM that contradicts the vCPU', '32 vCPU, 128 GB RAM'],
    ['RAM first, contradicting the vCPU', '64 GB RAM, 64 vCPU'],
    ['disk that contradicts the vCPU', '16 vCPU, 600 GB disk'],
    ['memory alone: RAM or disk? not guessed', '64 GB'],
    ['disk alone matches two rows', '200 GB disk'],
    ['a bare number', '32'],
    ['a name', 'large'],
    ['an instance type', 'c6i.8xlarge'],
    ['vCPU given twice', '32 vCPU 32 vCPU'],
    ['words we do not know', '32 vCPU turbo'],
    ['a unit we do not read', '32 vCPU, 65536 MB'],
    ['decimal', '32.5 vCPU']
  ])('[%#] unknown: %s (%j)', (_why, text) => {
    expect(parseBuilderSize(text)).toBeUndefined();
  });
});

describe('readBuilderSize', () => {
  // prettier-ignore
  test.each([
    ['the emulator profile listing entry', [{id: 'p1', name: 'default', architectures: ['amd64'], size: '16x32'}], '16x32'],
    ['builder_size text', [{id: 'b', builder_size: '32 vCPU, 64 GB RAM, 200 GB disk'}], '32x64'],
    ['machine_size', [{machine_size: '64x128'}], '64x128'],
    ['instance_size', [{instance_size: '96 vCPU'}], '96x192'],
    ['size object', [{size: {vcpu: 192, memory_gb: 384}}], '192x384'],
    ['vcpus + memory (GB)', [{vcpus: 32, memory: 64}], '32x64'],
    ['cpus as text + memory with unit', [{cpus: '16', memory: '32 GB'}], '16x32'],
    ['vcpu + ram_gb + disk_gb', [{vcpu: 96, ram_gb: 192, disk_gb: 600}], '96x192'],
    ['vcpu as "32 vCPU"', [{vcpu: '32 vCPU'}], '32x64'],
    ['in the details metadata', [{id: 'b', metadata: {host: 'h:1', ca: '', size: '64x128'}}], '64x128'],
    ['in resources', [{resources: {vcpus: 64, memory_gb: 128}}], '64x128'],
    ['assign entry and details agree', [{id: 'b', size: '32x64'}, {metadata: {}, vcpu: 32}], '32x64'],
    ['a source that says nothing is skipped', [{id: 'b'}, undefined, {size: '16x32'}], '16x32'],
    ['cpu (a model name) is not a vCPU key', [{size: '16x32', cpu: 'x86_64'}], '16x32']
  ])('[%#] %s', (_why, sources, size) => {
    expect(readBuilderSize(...sources)).toBe(size);
  });

  // prettier-ignore
  test.each([
    ['nothing', []],
    ['the spec details shape (size "not shown")', [{id: 'b', status: 'running', arch: 'amd64', metadata: {host: 'h:1', ca: 'x', client_cert: 'y', client_key: 'z'}}]],
    ['a size name we do not know', [{size: 'large'}]],
    ['a bare number under size: vCPU or GB?', [{size: 32}]],
    ['vCPU not in the table', [{vcpus: 8, memory: 16}]],
    ['memory in MB: not read as GB', [{vcpus: 32, memory: 65536}]],
    ['memory that contradicts the vCPU', [{vcpus: 32, memory_gb: 128}]],
    ['sources that disagree', [{size: '16x32'}, {size: '32x64'}]],
    ['a known size next to an unreadable one', [{size: '16x32'}, {builder_size: 'large'}]],
    ['size and vCPU of the same object disagree', [{size: '16x32', vcpus: 32}]],
    ['memory without vCPU', [{memory_gb: 64}]],
    ['an array is not a source', [['16x32'] as unknown as Record<string, unknown>]]
  ])('[%#] unknown: %s', (_why, sources) => {
    expect(readBuilderSize(...(sources as Record<string, unknown>[]))).toBeUndefined();
  });
});
