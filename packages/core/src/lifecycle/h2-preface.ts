/**
 * The start of an HTTP/2 connection (RFC 9113 §3.4), the protocol buildx speaks to BuildKit (gRPC) over the
 * builder's TLS connection. The readiness probe sends the client's preface and waits for the server's: seeing
 * it proves that the builder accepted our client certificate and that an HTTP/2 server answers behind it.
 */

/** The client connection preface: a fixed string, then a SETTINGS frame. */
const CLIENT_MAGIC = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** Every frame starts with a 9-byte header: length (24 bits), type, flags, stream id (31 bits). */
export const H2_FRAME_HEADER_BYTES = 9;
const FRAME_SETTINGS = 0x4;
const FRAME_GOAWAY = 0x7;
const FLAG_ACK = 0x1;
/** Each SETTINGS parameter is 6 bytes (id 16 bits, value 32 bits). */
const SETTING_BYTES = 6;

/** What a client sends first: the magic string and an empty SETTINGS frame (every setting at its default). */
export function h2ClientPreface(): Buffer {
  return Buffer.concat([CLIENT_MAGIC, Buffer.from([0, 0, 0, FRAME_SETTINGS, 0, 0, 0, 0, 0])]);
}

/** The server's first bytes, read so far: its preface, not enough to tell yet, or something that is not HTTP/2. */
export type H2ServerStart = {kind: 'preface'} | {kind: 'more'} | {kind: 'not-h2'; what: string};

/**
 * Reads the server's first frame header. The server's preface is a SETTINGS frame (not an ACK, stream 0,
 * a whole number of settings) and it "MUST be the first frame the server sends" (RFC 9113 §3.4).
 */
export function readH2ServerStart(bytes: Buffer): H2ServerStart {
  if (bytes.subarray(0, 5).toString('latin1') === 'HTTP/') {
    return {kind: 'not-h2', what: `an HTTP/1.x answer (${JSON.stringify(firstLine(bytes))})`};
  }
  if (bytes.length < H2_FRAME_HEADER_BYTES) return {kind: 'more'};
  const length = bytes.readUIntBE(0, 3);
  const type = bytes[3] as number;
  const flags = bytes[4] as number;
  const stream = bytes.readUInt32BE(5) & 0x7fffffff;
  if (type === FRAME_SETTINGS && (flags & FLAG_ACK) === 0 && stream === 0 && length % SETTING_BYTES === 0) {
    return {kind: 'preface'};
  }
  const name = type === FRAME_SETTINGS ? 'SETTINGS' : type === FRAME_GOAWAY ? 'GOAWAY' : `type ${type}`;
  return {
    kind: 'not-h2',
    what: `bytes that are not an HTTP/2 server preface (first frame header: ${name}, length ${length}, flags ${flags}, stream ${stream})`
  };
}

function firstLine(bytes: Buffer): string {
  const text = bytes.subarray(0, 80).toString('latin1');
  return text.split('\r\n')[0] ?? text;
}
