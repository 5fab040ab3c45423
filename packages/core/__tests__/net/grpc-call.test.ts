// gRPC's message framing (grpc-call.ts); the calls themselves are tested against servers in
// lifecycle/buildkit-info.test.ts (unary, every failure) and record/grpc-record-export.test.ts (streams).
import {describe, expect, test} from '@jest/globals';
import {grpcFrame, grpcMessages} from '../../src/net/grpc-call.js';

describe('grpcFrame / grpcMessages', () => {
  test('a message framed: flag 0, its length big-endian, its bytes', () => {
    expect([...grpcFrame(new Uint8Array([7, 8]))]).toEqual([0, 0, 0, 0, 2, 7, 8]);
    expect([...grpcFrame(new Uint8Array())]).toEqual([0, 0, 0, 0, 0]);
  });

  test('a stream of messages read back in order, an empty one included', () => {
    const body = Buffer.from([0, 0, 0, 0, 1, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2]);
    expect(grpcMessages(body).map(m => [...m])).toEqual([[9], [], [1, 2]]);
  });

  test.each([
    ['a compressed message', [1, 0, 0, 0, 1, 9], /compressed/],
    ['a message shorter than its length', [0, 0, 0, 0, 3, 9], /truncated gRPC message/],
    ['a prefix cut short', [0, 0, 0], /truncated gRPC message prefix/]
  ])('%s is refused', (_what, bytes, error) => {
    expect(() => grpcMessages(Buffer.from(bytes))).toThrow(error);
  });
});
