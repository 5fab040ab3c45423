import {StringDecoder} from 'node:string_decoder';

/** LineSplitter turns a byte stream's chunks into complete UTF-8 lines, without their CRLF or LF. */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  /** Adds a chunk and returns the lines it completed. */
  push(chunk: Buffer): string[] {
    this.pending += this.decoder.write(chunk);
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    return lines.map(stripCr);
  }

  /** Returns the last, unterminated line, if any. */
  end(): string[] {
    this.pending += this.decoder.end();
    const rest = this.pending;
    this.pending = '';
    return rest === '' ? [] : [stripCr(rest)];
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
