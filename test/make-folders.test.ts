import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFolders } from '../src/make-folders.js';

const root = mkdtempSync(join(tmpdir(), 'make-folders-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('makeFolders', () => {
  it('makes the missing folders of a path, and takes one already there', () => {
    const deep = join(root, 'a', 'b', 'c');
    makeFolders(deep);
    expect(existsSync(deep)).toBe(true);
    makeFolders(deep);
  });

  it("throws the mkdir's ENOENT under /proc, where recursive mkdir retried it for ever", () => {
    expect(() => makeFolders('/proc/cardsync-none/reports')).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });
});
