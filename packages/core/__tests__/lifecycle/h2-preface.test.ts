import {describe, expect, test} from '@jest/globals';
import {h2ClientPreface, readH2ServerStart, type H2ServerStart} from '../../src/lifecycle/h2-preface.js';

const bytes = (...b: number[]): Buffer => Buffer.from(b);

describe('h2ClientPreface', () => {
  test('the magic string of RFC 9113 §3.4, then an empty SETTINGS frame', () => {
    expect(h2ClientPreface()).toEqual(
      Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'), bytes(0, 0, 0, 4, 0, 0, 0, 0, 0)])
    );
  });
});

describe('readH2ServerStart', () => {
  // prettier-ignore
  test.each<[number, string, Buffer, H2ServerStart]>([
    [1, 'an empty SETTINGS frame', bytes(0, 0, 0, 4, 0, 0, 0, 0, 0), {kind: 'preface'}],
    [2, 'SETTINGS with two settings, more bytes after', bytes(0, 0, 12, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100, 0, 4, 0, 1, 0, 0, 0, 0, 0, 4, 1), {kind: 'preface'}],
    [3, 'nothing yet', bytes(), {kind: 'more'}],
    [4, 'part of a frame header', bytes(0, 0, 0, 4), {kind: 'more'}],
    [5, 'a SETTINGS ACK', bytes(0, 0, 0, 4, 1, 0, 0, 0, 0), {kind: 'not-h2', what: 'bytes that are not an HTTP/2 server preface (first frame header: SETTINGS, length 0, flags 1, stream 0)'}],
    [6, 'SETTINGS on a stream', bytes(0, 0, 0, 4, 0, 0, 0, 0, 1), {kind: 'not-h2', what: 'bytes that are not an HTTP/2 server preface (first frame header: SETTINGS, length 0, flags 0, stream 1)'}],
    [7, 'SETTINGS of a length that is no whole number of settings', bytes(0, 0, 5, 4, 0, 0, 0, 0, 0), {kind: 'not-h2', what: 'bytes that are not an HTTP/2 server preface (first frame header: SETTINGS, length 5, flags 0, stream 0)'}],
    [8, 'a GOAWAY', bytes(0, 0, 8, 7, 0, 0, 0, 0, 0), {kind: 'not-h2', what: 'bytes that are not an HTTP/2 server preface (first frame header: GOAWAY, length 8, flags 0, stream 0)'}],
    [9, 'a HEADERS frame', bytes(0, 0, 1, 1, 4, 0, 0, 0, 1), {kind: 'not-h2', what: 'bytes that are not an HTTP/2 server preface (first frame header: type 1, length 1, flags 4, stream 1)'}],
    [10, 'an HTTP/1.1 answer, even short', Buffer.from('HTTP/'), {kind: 'not-h2', what: 'an HTTP/1.x answer ("HTTP/")'}],
    [11, 'an HTTP/1.1 status line', Buffer.from('HTTP/1.1 426 Upgrade Required\r\nUpgrade: h2c\r\n\r\n'), {kind: 'not-h2', what: 'an HTTP/1.x answer ("HTTP/1.1 426 Upgrade Required")'}]
  ])('[%d] %s → %o', (_n, _what, input, expected) => {
    expect(readH2ServerStart(input)).toEqual(expected);
  });
});
