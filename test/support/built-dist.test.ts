import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { staleBuild } from './built-dist.js';

describe('staleBuild', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  /** A package with src/sync/a.ts built `builtAgo` seconds before its source (or not built). */
  function tree(builtAgo: number | null): string {
    const root = mkdtempSync(join(tmpdir(), 'cardsync-dist-'));
    roots.push(root);
    mkdirSync(join(root, 'src/sync'), { recursive: true });
    mkdirSync(join(root, 'dist/sync'), { recursive: true });
    writeFileSync(join(root, 'src/sync/a.ts'), 'export const a = 1;\n');
    if (builtAgo !== null) {
      const built = join(root, 'dist/sync/a.js');
      writeFileSync(built, 'export const a = 1;\n');
      const at = Date.now() / 1000;
      utimesSync(join(root, 'src/sync/a.ts'), at, at);
      utimesSync(built, at - builtAgo, at - builtAgo);
    }
    return root;
  }

  it('names a source whose build is older or missing, and nothing when all are built', () => {
    expect(staleBuild(tree(60))).toBe(join('src', 'sync', 'a.ts'));
    expect(staleBuild(tree(null))).toBe(join('src', 'sync', 'a.ts'));
    expect(staleBuild(tree(-60))).toBeUndefined();
  });
});
