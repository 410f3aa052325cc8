import { readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolders } from '../make-folders.js';
import { UsageError } from './exit-codes.js';

/** The file that marks a folder as the demo's own, so a later demo may empty it. */
export const DEMO_MARKER = '.cardsync-demo';

/** Where a demo keeps each of its files, all inside one folder. */
export interface DemoLayout {
  /** The demo folder (absolute). */
  readonly dir: string;
  /** The sandbox's state: its SQLite file, CA, journals, ground truth, and the key files. */
  readonly sandboxDir: string;
  readonly db: string;
  readonly reportsDir: string;
  /** The job's config file naming the sandbox's merchants. */
  readonly configFile: string;
}

/**
 * The entries a demo writes besides its marker, and the only ones a later demo deletes:
 * whatever else someone put in the folder (a copy of the mirror, notes) stays.
 */
const DEMO_ENTRIES = [
  'sandbox',
  'reports',
  'cardsync.json',
  'cardsync.sqlite',
  'cardsync.sqlite-wal',
  'cardsync.sqlite-shm',
  'cardsync.sqlite-journal',
] as const;

const MARKER_TEXT =
  'This folder belongs to `cardsync demo`: each demo deletes and recreates sandbox/, reports/,\n' +
  'cardsync.json and cardsync.sqlite here. Without this file, the demo refuses the folder.\n';

/** The files of a demo in `dir` (absolute). */
export function demoLayout(dir: string): DemoLayout {
  return {
    dir,
    sandboxDir: join(dir, 'sandbox'),
    db: join(dir, 'cardsync.sqlite'),
    reportsDir: join(dir, 'reports'),
    configFile: join(dir, 'cardsync.json'),
  };
}

/**
 * Make `layout.dir` ready for a fresh demo: create it, or accept it when it is empty or carries
 * the demo's marker, then delete what an earlier demo left there. Any other folder is refused
 * before anything in it is touched, since `--dir` pointing at the wrong place must not cost
 * anyone their files.
 * @throws UsageError naming `--dir` when the folder is not a demo's.
 */
export async function prepareDemoFolder(layout: DemoLayout): Promise<void> {
  const entries = await existingEntries(layout.dir);
  if (entries === null) {
    try {
      makeFolders(layout.dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new UsageError(`--dir ${layout.dir}: cannot create it (${code}); choose another --dir`);
    }
  } else if (entries.length > 0 && !entries.includes(DEMO_MARKER)) {
    throw new UsageError(
      `--dir ${layout.dir} is not a demo folder (it holds files and no ${DEMO_MARKER}); choose another --dir`,
    );
  }
  // The marker goes first: a demo stopped at any later point leaves a folder the next may empty.
  await writeFile(join(layout.dir, DEMO_MARKER), MARKER_TEXT);
  await Promise.all(
    DEMO_ENTRIES.map((name) => rm(join(layout.dir, name), { recursive: true, force: true })),
  );
}

/** The names in `dir`, or null when it does not exist; a file there is a usage error. */
async function existingEntries(dir: string): Promise<string[] | null> {
  try {
    if (!(await stat(dir)).isDirectory())
      throw new UsageError(`--dir ${dir} is a file, not a folder; choose another --dir`);
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`--dir ${dir}: cannot read it (${code}); choose another --dir`);
  }
}
