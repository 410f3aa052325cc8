import { parse, stringify } from 'lossless-json';

/**
 * JSON `text` parsed with each number kept as the text it was written in (a `LosslessNumber`):
 * `12.50` stays `12.50`, `9007199254740993` is not rounded to `9007199254740992`, `1e400` does
 * not become Infinity (and `null` once written back). A key given twice keeps its last value, as
 * with `JSON.parse`, so the two readings hold the same records in the same places. Undefined when
 * the text does not parse. It costs several times `JSON.parse`: the client calls it only on an
 * answer that holds a record it refused, to keep that record as it was sent.
 * @example stringifyExactly(parseExactly('{"amount":12.50}')) // '{"amount":12.50}'
 */
export function parseExactly(text: string): unknown {
  try {
    return parse(text, null, { onDuplicateKey: ({ newValue }) => newValue });
  } catch {
    return undefined;
  }
}

/**
 * JSON text of a value from {@link parseExactly}, compact, each number written as it was read;
 * the same text as `JSON.stringify` for a value without them.
 */
export function stringifyExactly(value: unknown): string | undefined {
  return stringify(value);
}
