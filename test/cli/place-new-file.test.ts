import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { placeNewFile } from '../../src/cli/place-new-file.js';

// A file system without hard links cannot be made here: `linkSync` fails on demand instead.
const links = vi.hoisted(() => ({ fail: undefined as string | undefined }));
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  return {
    ...fs,
    linkSync: (...args: Parameters<typeof fs.linkSync>) => {
      if (links.fail) throw Object.assign(new Error(`link: ${links.fail}`), { code: links.fail });
      fs.linkSync(...args);
    },
  };
});

describe('placeNewFile', () => {
  let dirs: string[] = [];
  const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), 'cardsync-place-'));
    dirs.push(dir);
    return dir;
  };
  beforeEach(() => {
    dirs = [];
    links.fail = undefined;
  });
  afterEach(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('links the file under the new name in the same folder', () => {
    const dir = temp();
    writeFileSync(join(dir, 'scratch'), 'journal');
    placeNewFile(join(dir, 'scratch'), join(dir, 'mirror.sqlite'));
    expect(readFileSync(join(dir, 'mirror.sqlite'), 'utf8')).toBe('journal');
    expect(statSync(join(dir, 'mirror.sqlite')).ino).toBe(statSync(join(dir, 'scratch')).ino);
  });

  it('never replaces a file of that name: EEXIST, and the file is left as it was', () => {
    const dir = temp();
    writeFileSync(join(dir, 'scratch'), 'new');
    writeFileSync(join(dir, 'mirror.sqlite'), 'made meanwhile');
    expect(() => placeNewFile(join(dir, 'scratch'), join(dir, 'mirror.sqlite'))).toThrow(
      expect.objectContaining({ code: 'EEXIST' }),
    );
    expect(readFileSync(join(dir, 'mirror.sqlite'), 'utf8')).toBe('made meanwhile');
  });

  it('copies where no link can be made (EXDEV: another file system), still never replacing', () => {
    const dir = temp();
    writeFileSync(join(dir, 'scratch'), 'journal');
    links.fail = 'EXDEV';
    placeNewFile(join(dir, 'scratch'), join(dir, 'mirror.sqlite'));
    expect(readFileSync(join(dir, 'mirror.sqlite'), 'utf8')).toBe('journal');
    expect(statSync(join(dir, 'mirror.sqlite')).ino).not.toBe(statSync(join(dir, 'scratch')).ino);
    writeFileSync(join(dir, 'again'), 'other');
    expect(() => placeNewFile(join(dir, 'again'), join(dir, 'mirror.sqlite'))).toThrow(
      expect.objectContaining({ code: 'EEXIST' }),
    );
    expect(readFileSync(join(dir, 'mirror.sqlite'), 'utf8')).toBe('journal');
  });
});
