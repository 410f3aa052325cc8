import { describe, expect, it } from 'vitest';
import { jsonErrorOffset } from '../../src/config/json-error-offset.js';

describe('jsonErrorOffset', () => {
  it.each([
    '{}',
    '[]',
    ' {\n "a": [1, -2.5e+3, 0, true, false, null, "x\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"] } \n',
    '"just a string"',
    '0',
    JSON.stringify({ merchants: [{ name: 'eu', sync: { n: 1.25 } }], é: '✓' }),
  ])('accepts valid JSON %j, as JSON.parse does', (text) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(jsonErrorOffset(text)).toBeUndefined();
  });

  it.each([
    ['{"a" 1}', 5],
    ['{"a": sk_live_123}', 6],
    ['{"a": 1,}', 8],
    ['[1 2]', 3],
    ['{"a": 01}', 7],
    ['{"a": "tab\there"}', 10],
    ['{"a": "\\x"}', 8],
    ['{"a": tru}', 6],
    ['{"a": 1} x', 9],
    ["{'a': 1}", 1],
    ['{"a": -}', 6],
  ])('finds where %j stops being JSON (offset %i)', (text, offset) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(jsonErrorOffset(text)).toBe(offset);
  });

  it.each(['', '{', '{"a": ', '{"a": "unterminated', '[1, 2'])(
    'reports %j as ending early (offset = length)',
    (text) => {
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(jsonErrorOffset(text)).toBe(text.length);
    },
  );
});
