import { isUtf8 } from 'node:buffer';
import { lineBreaksIn } from './stream-lines.js';

const LF = 0x0a;
const CR = 0x0d;
const NOTHING = new Uint8Array(0);

/**
 * Checks that a byte stream is UTF-8 text as its chunks go by, and names the line where the
 * first stretch between two line breaks (LF or CR) that is not starts (lines counted as
 * {@link StreamLines} does: a file whose lines end with a lone CR is named by its lines too).
 * A character split between two chunks is carried over to the next, never taken for an error.
 * @example
 * const watch = new Utf8Watch();
 * watch.push(Buffer.from('a\nb\xff\n', 'latin1')); // 2
 */
export class Utf8Watch {
  /** The start of a multi-byte character that the next chunk should finish. */
  #pending: Uint8Array = NOTHING;
  /** The line of the next byte, and whether the byte before it was a CR (a lone one unless LF). */
  #line = 1;
  #afterCr = false;
  /** The line where the stretch after the last line break starts. */
  #stretchLine = 1;

  /** Undefined while the bytes so far are UTF-8; else the line of the first stretch that is not. */
  push(chunk: Uint8Array): number | undefined {
    const bytes = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const cut = bytes.length - unfinishedTail(bytes);
    this.#pending = bytes.subarray(cut);
    const whole = bytes.subarray(0, cut);
    if (isUtf8(whole)) {
      this.#count(whole);
      return undefined;
    }
    return this.#firstBadStretch(whole);
  }

  /** At the end of the stream: a character left unfinished is not UTF-8 either. */
  end(): number | undefined {
    return this.#pending.length === 0 ? undefined : this.#stretchLine;
  }

  /** Count the lines of `bytes`, which starts where the last chunk counted ended. */
  #count(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.#afterCr && bytes[0] !== LF) this.#line += 1;
    const lastBreak = Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR));
    if (lastBreak !== -1) {
      this.#line += lineBreaksIn(bytes, 0, lastBreak + 1);
      // A CR at the very end is counted with the next chunk (it may be a CRLF's); either way
      // what follows it is on the next line.
      const pendingCr = bytes[lastBreak] === CR && lastBreak === bytes.length - 1;
      this.#stretchLine = pendingCr ? this.#line + 1 : this.#line;
    }
    this.#afterCr = bytes[bytes.length - 1] === CR;
  }

  /**
   * Decode `bytes` one piece ending at a line break (LF or CR) at a time: the first that fails
   * belongs to the first bad stretch (the earlier pieces of a stretch that began in an earlier
   * chunk were good).
   */
  #firstBadStretch(bytes: Uint8Array): number {
    let start = 0;
    while (start < bytes.length) {
      const end = nextBreakEnd(bytes, start);
      const piece = bytes.subarray(start, end);
      if (!isUtf8(piece)) break;
      this.#count(piece);
      start = end;
    }
    return this.#stretchLine;
  }
}

/** Where the piece of `bytes` from `start` ends: past its first LF or CR, else at the end. */
function nextBreakEnd(bytes: Uint8Array, start: number): number {
  const lf = bytes.indexOf(LF, start);
  const cr = bytes.indexOf(CR, start);
  const first = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
  return first === -1 ? bytes.length : first + 1;
}

/**
 * How many bytes at the end of `bytes` begin a multi-byte character that is not complete yet
 * (at most 3); 0 when the end is a character boundary, or not UTF-8 anyway.
 */
function unfinishedTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return size > back ? back : 0;
  }
  return 0;
}
