import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type Mirror, openMirror } from '../../src/mirror/open-mirror.js';

/** A fresh mirror for each test, in a temp folder the file's tests share. */
export interface TempMirrors {
  /** The current test's mirror (migrated, open). */
  readonly mirror: Mirror;
  /** The temp folder, for the files a test writes. */
  readonly dir: string;
}

/**
 * Register hooks that give each test of the calling file its own mirror file in one temp folder
 * (named `prefix...`), closed after the test and removed with the folder after the file.
 */
export function useTempMirrors(prefix: string): TempMirrors {
  let dir: string | undefined;
  let mirror: Mirror | undefined;
  let count = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    count += 1;
    mirror = openMirror(join(dir as string, `mirror-${count}.sqlite`));
  });
  afterEach(async () => {
    await mirror?.close();
  });
  return {
    get mirror() {
      if (!mirror) throw new Error('no mirror outside a test');
      return mirror;
    },
    get dir() {
      if (!dir) throw new Error('no temp folder before the tests start');
      return dir;
    },
  };
}
