import { describe, expect, it } from 'vitest';
import { duplicateJsonKey } from '../../src/config/duplicate-json-key.js';

describe('duplicateJsonKey', () => {
  it('finds none in objects whose keys are each given once, the same key in sibling objects included', () => {
    for (const text of [
      '{}',
      '[]',
      '"x"',
      '{"a": [], "b": {}, "c": [1, -2.5e3, true, false, null]}',
      '[{"name": "eu"}, {"name": "us"}]',
      '{"s": "a \\"quoted\\" {brace} and a backslash \\\\", "t": "\\\\"}',
      '{"A": 1, "a": 2}',
    ])
      expect(duplicateJsonKey(text), text).toBeUndefined();
  });

  it('finds a repeated key at any depth, with its path and the offset of the repeat', () => {
    expect(duplicateJsonKey('{"db": "a", "db": "b"}')).toEqual({ path: ['db'], offset: 12 });
    expect(duplicateJsonKey('{"m": [{"n": 1}, {"n": 1, "k": [], "n": 2}]}')).toEqual({
      path: ['m', 1, 'n'],
      offset: 35,
    });
  });

  it('compares keys after unescaping', () => {
    expect(duplicateJsonKey('{"X": 1, "\\u0058": 2}')?.path).toEqual(['X']);
  });
});
