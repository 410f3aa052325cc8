import { describe, expect, it } from 'vitest';
import { lineBreaksIn, StreamLines } from '../../src/journal/stream-lines.js';
import { Utf8Watch } from '../../src/journal/utf8-watch.js';

const LF = 0x0a;
const CR = 0x0d;

/** The line of `offset` as an editor counts it, from the whole buffer (the reference). */
function lineOf(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++)
    if (bytes[i] === LF || (bytes[i] === CR && bytes[i + 1] !== LF)) line += 1;
  return line;
}

/** The line where the first stretch between line breaks that is not UTF-8 starts (the reference). */
function firstBadStretchLine(bytes: Uint8Array): number | undefined {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== LF && bytes[i] !== CR) continue;
    try {
      decoder.decode(bytes.subarray(start, i));
    } catch {
      return lineOf(bytes, start);
    }
    start = i + 1;
  }
  return undefined;
}

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Split `bytes` into chunks of random sizes from 1 to `max`. */
function chunked(bytes: Uint8Array, next: () => number, max: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(next() * max);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

const PIECES = ['a', 'bc', ',', '"', '\r', '\n', '\r\n', '\n\n', '\r\r', 'é', '€', '𝄞'];

function text(next: () => number, pieces: number): Uint8Array {
  let out = '';
  for (let i = 0; i < pieces; i++) out += PIECES[Math.floor(next() * PIECES.length)];
  return Buffer.from(out);
}

describe('lineBreaksIn', () => {
  it('counts LF, CRLF and a lone CR once each, leaving out a CR at the very end', () => {
    const bytes = Buffer.from('a\r\nb\rc\nd\r');
    expect(lineBreaksIn(bytes, 0, bytes.length)).toBe(3);
    expect(lineBreaksIn(bytes, 0, 2)).toBe(0); // the CR of a CRLF is no break
    expect(lineBreaksIn(bytes, 2, 5)).toBe(2);
  });
});

describe('StreamLines', () => {
  it('numbers lines as the whole buffer does, however the stream is cut', () => {
    const next = random(7);
    for (let round = 0; round < 300; round++) {
      const bytes = text(next, 1 + Math.floor(next() * 40));
      const lines = new StreamLines();
      for (const chunk of chunked(bytes, next, 6)) lines.push(chunk);
      let offset = 0;
      while (offset <= bytes.length) {
        expect(lines.lineOf(offset), `${JSON.stringify(bytes.toString())} at ${offset}`).toBe(
          lineOf(bytes, offset),
        );
        offset += 1 + Math.floor(next() * 5);
      }
    }
  });

  it('gives the line where a record starts, past the empty lines before it', () => {
    const lines = new StreamLines();
    for (const chunk of ['h\r', '\n\r', '\n', '\r\nrow']) lines.push(Buffer.from(chunk));
    expect(lines.lineOfRecordAfter(0)).toBe(1);
    expect(lines.lineOfRecordAfter(1)).toBe(4);
  });

  it('refuses to go back to an offset it has let go of', () => {
    const lines = new StreamLines();
    lines.push(Buffer.from('a\nb\nc'));
    lines.lineOf(4);
    expect(() => lines.lineOf(1)).toThrow(RangeError);
  });
});

describe('Utf8Watch', () => {
  const BAD = [[0xff], [0xc3], [0x80], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf0, 0x9d]];

  it('names the same line as a check of the whole buffer, however the stream is cut', () => {
    const next = random(11);
    for (let round = 0; round < 400; round++) {
      const parts: Uint8Array[] = [text(next, 1 + Math.floor(next() * 20))];
      if (next() < 0.7) parts.push(Buffer.from(BAD[Math.floor(next() * BAD.length)] ?? []));
      parts.push(text(next, Math.floor(next() * 20)));
      const bytes = Buffer.concat(parts);
      const watch = new Utf8Watch();
      let found: number | undefined;
      for (const chunk of chunked(bytes, next, 5)) {
        found = watch.push(chunk);
        if (found !== undefined) break;
      }
      found ??= watch.end();
      expect(found, JSON.stringify([...bytes])).toBe(firstBadStretchLine(bytes));
    }
  });

  it('takes a character cut between two chunks for what it is', () => {
    const watch = new Utf8Watch();
    const bytes = Buffer.from('a,€\n𝄞');
    for (const byte of bytes) expect(watch.push(Uint8Array.of(byte))).toBeUndefined();
    expect(watch.end()).toBeUndefined();
  });

  it('names the last line when the stream ends inside a character', () => {
    const watch = new Utf8Watch();
    expect(watch.push(Buffer.from('a\nb\n\xe2\x82', 'latin1'))).toBeUndefined();
    expect(watch.end()).toBe(3);
  });
});
