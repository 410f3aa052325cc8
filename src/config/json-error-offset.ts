const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

class Stop {
  constructor(readonly offset: number) {}
}

/**
 * Where `text` stops being JSON (a UTF-16 offset; `text.length` when it ends early), or
 * undefined when it is valid. JSON.parse says where only in some of its messages, and in others
 * quotes the text around the fault instead, which may hold a secret: this finds the place
 * without either.
 *
 * @example
 * jsonErrorOffset('{"a" 1}'); // 5
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const stop = (at = i): never => {
    throw new Stop(at);
  };
  const skip = () => {
    while (i < text.length && WHITESPACE.has(text[i] as string)) i++;
  };
  const expect = (char: string) => {
    if (text[i] !== char) stop();
    i++;
  };
  const string = () => {
    expect('"');
    for (;;) {
      const c = text[i];
      if (c === undefined || c < ' ') stop();
      i++;
      if (c === '"') return;
      if (c === '\\') {
        const e = text[i];
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) i += 5;
        else if (e !== undefined && ESCAPES.has(e)) i++;
        else stop();
      }
    }
  };
  const list = (close: string, item: () => void) => {
    i++;
    skip();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      skip();
      item();
      skip();
      if (text[i] === close) {
        i++;
        return;
      }
      expect(',');
    }
  };
  const value = (): void => {
    skip();
    const c = text[i];
    if (c === '{') {
      list('}', () => {
        string();
        skip();
        expect(':');
        value();
      });
    } else if (c === '[') list(']', value);
    else if (c === '"') string();
    else if (c !== undefined && (c === '-' || (c >= '0' && c <= '9'))) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) stop();
      i = NUMBER.lastIndex;
    } else {
      const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, i));
      if (!word) stop();
      i += (word as string).length;
    }
  };
  try {
    value();
    skip();
    if (i < text.length) stop();
    return undefined;
  } catch (error) {
    if (error instanceof Stop) return Math.min(error.offset, text.length);
    throw error;
  }
}
