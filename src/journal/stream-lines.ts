const LF = 0x0a;
const CR = 0x0d;

/**
 * The line breaks ending in `bytes[from, to)`, as an editor counts them: each LF, and each CR
 * not followed by an LF (CRLF is one break, at its LF). A CR that is the last byte of `bytes` is
 * left out: what follows it is not known yet, and the caller decides.
 * @example lineBreaksIn(Buffer.from('a\r\nb\rc\n'), 0, 7) // 3
 */
export function lineBreaksIn(bytes: Uint8Array, from: number, to: number): number {
  const span = bytes.subarray(from, to);
  let breaks = 0;
  for (let i = span.indexOf(LF); i !== -1; i = span.indexOf(LF, i + 1)) breaks += 1;
  for (let i = span.indexOf(CR); i !== -1; i = span.indexOf(CR, i + 1)) {
    const next = from + i + 1;
    if (next < bytes.length && bytes[next] !== LF) breaks += 1;
  }
  return breaks;
}

/**
 * Line numbers of byte offsets in a stream read once, front to back, with LF, CRLF and a lone
 * CR each one line break. Offsets must be asked in increasing order; the bytes before the last
 * one asked are let go, so it holds only the chunks between the reader and the writer.
 * @example
 * const lines = new StreamLines();
 * lines.push(Buffer.from('a\r\n\r\nb'));
 * lines.lineOfRecordAfter(3); // 3: past the empty line, where `b` starts
 */
export class StreamLines {
  /** The chunks not yet passed; the first starts at offset `#base`. */
  readonly #chunks: Uint8Array[] = [];
  #base = 0;
  /** The offset last asked about, and its line. */
  #cursor = 0;
  #line = 1;

  /** Add the next chunk of the stream. */
  push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
  }

  /** The line where the record after offset `end` starts: past the line breaks of empty lines. */
  lineOfRecordAfter(end: number): number {
    let at = end;
    for (let byte = this.#byteAt(at); byte === LF || byte === CR; byte = this.#byteAt(at)) at += 1;
    return this.lineOf(at);
  }

  /** The 1-based line of the byte at `offset` (the header of a file is line 1). */
  lineOf(offset: number): number {
    if (offset < this.#cursor)
      throw new RangeError(`offset ${offset} is behind ${this.#cursor}, which was already passed`);
    while (this.#cursor < offset) {
      const chunk = this.#chunks[0];
      if (chunk === undefined) break;
      const chunkEnd = this.#base + chunk.length;
      const to = Math.min(offset, chunkEnd);
      this.#line += lineBreaksIn(chunk, this.#cursor - this.#base, to - this.#base);
      this.#cursor = to;
      if (to === chunkEnd) {
        // The CR lineBreaksIn left out: a break unless the next chunk starts with its LF.
        if (chunk[chunk.length - 1] === CR && this.#byteAt(chunkEnd) !== LF) this.#line += 1;
        this.#chunks.shift();
        this.#base = chunkEnd;
      }
    }
    return this.#line;
  }

  #byteAt(offset: number): number | undefined {
    let start = this.#base;
    for (const chunk of this.#chunks) {
      if (offset < start + chunk.length) return chunk[offset - start];
      start += chunk.length;
    }
    return undefined;
  }
}
