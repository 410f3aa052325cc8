/** A key that a JSON object gives twice: its path segments and the offset of its second mention. */
export interface DuplicateJsonKey {
  /** From the root: object keys and array indexes (`['merchants', 1, 'baseUrl']`). */
  readonly path: readonly (string | number)[];
  /** UTF-16 offset of the repeated key's opening quote. */
  readonly offset: number;
}

const SPACE = new Set([' ', '\t', '\n', '\r']);
const END_OF_SCALAR = new Set([',', '}', ']', ' ', '\t', '\n', '\r']);

/**
 * The first key an object of `text` (valid JSON: JSON.parse accepted it) gives more than once,
 * keys compared after unescaping; undefined when there is none. JSON.parse keeps the last of
 * them without a word, so a config file edited twice would run with whichever came last.
 *
 * @example
 * duplicateJsonKey('{"db": "a", "db": "b"}'); // { path: ['db'], offset: 12 }
 */
export function duplicateJsonKey(text: string): DuplicateJsonKey | undefined {
  let i = 0;
  const space = () => {
    while (SPACE.has(text[i] as string)) i++;
  };
  const string = (): string => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: (string | number)[]): DuplicateJsonKey | undefined => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      space();
      if (text[i] === '}') return void i++;
      const seen = new Set<string>();
      for (;;) {
        space();
        const offset = i;
        const key = string();
        if (seen.has(key)) return { path: [...path, key], offset };
        seen.add(key);
        space();
        i++; // ':'
        const found = value([...path, key]);
        if (found) return found;
        space();
        if (text[i++] === '}') return undefined;
      }
    }
    if (c === '[') {
      i++;
      space();
      if (text[i] === ']') return void i++;
      for (let index = 0; ; index++) {
        const found = value([...path, index]);
        if (found) return found;
        space();
        if (text[i++] === ']') return undefined;
      }
    }
    if (c === '"') {
      string();
      return undefined;
    }
    while (i < text.length && !END_OF_SCALAR.has(text[i] as string)) i++;
    return undefined;
  };
  return value([]);
}
