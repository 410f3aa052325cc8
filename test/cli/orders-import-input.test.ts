import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  createWriteStream,
  existsSync,
  openSync,
  readdirSync,
  utimesSync,
} from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { CLI, finished, runCliProcess, startCliProcess } from '../support/cli-process.js';

const HEADER = 'merchantOrderNo,kind,cardId,offeringId,amount,currency,submittedAt,orderNo';
const AT = '2026-11-20T10:00:00Z';

let dir: string;
let mirrors = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cardsync-import-input-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Environment with no upstream and a fresh mirror path of its own. */
function freshEnv(): { env: NodeJS.ProcessEnv; db: string } {
  mirrors += 1;
  const db = join(dir, `mirror-${mirrors}.sqlite`);
  return {
    db,
    env: {
      ...process.env,
      CARDSYNC_DB: db,
      CARDSYNC_BASE_URL: '',
      CARDSYNC_API_KEY: '',
      CARDSYNC_API_KEY_FILE: '',
      CARDSYNC_MERCHANT_ID: '',
    },
  };
}

function journaled(db: string): string[] {
  const mirror = new Database(db, { readonly: true });
  try {
    return mirror
      .prepare('SELECT merchant_order_no FROM orders ORDER BY merchant_order_no')
      .pluck()
      .all() as string[];
  } finally {
    mirror.close();
  }
}

describe('cardsync orders import from a pipe', () => {
  it('imports a journal piped in on /dev/stdin, as `cat books.csv | cardsync orders import /dev/stdin` does', async () => {
    const { env, db } = freshEnv();
    const file = join(dir, 'books.csv');
    await writeFile(
      file,
      `${HEADER}\nmo-1,DEPOSIT,card_1,,1.00,USD,${AT},ord_1\nmo-2,CANCEL,card_1,,,,${AT},\n`,
    );
    // A real pipe, as an operator's shell makes it (a spawned child's stdin is a socket).
    const child = spawn(
      'bash',
      [
        '-c',
        'cat "$3" | "$1" "$2" orders import /dev/stdin --merchant mch_1 --json',
        'bash',
        process.execPath,
        CLI,
        file,
      ],
      { env, stdio: 'pipe' },
    );
    const result = await finished(child);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 2, inserted: 2 });
    expect(journaled(db)).toEqual(['mo-1', 'mo-2']);
  });
});

describe('cardsync orders import from a socket on stdin', () => {
  it('imports a journal written to its stdin by a program that spawned it (a socket, not a pipe)', async () => {
    const { env, db } = freshEnv();
    // A Node.js (libuv) parent's piped stdio is a socket pair: /dev/stdin names a socket, which
    // open(2) refuses (ENXIO); the journal is read from the descriptor itself.
    const child = startCliProcess(
      ['orders', 'import', '/dev/stdin', '--merchant', 'mch_1', '--json'],
      env,
    );
    child.child.stdin.end(`${HEADER}\nmo-1,DEPOSIT,card_1,,1.00,USD,${AT},ord_1\n`);
    const code = await child.exited();
    expect(code, child.stderr()).toBe(0);
    expect(JSON.parse(child.stdout())).toMatchObject({ rows: 1, inserted: 1 });
    expect(journaled(db)).toEqual(['mo-1']);
  });
});

describe('cardsync orders import interrupted', () => {
  it('stops on Ctrl-C (SIGINT) with exit 4, importing nothing and leaving no mirror behind', async () => {
    const { env, db } = freshEnv();
    // A FIFO keeps the import reading until the test has sent the signal: the file cannot end
    // before the rows written after it.
    const fifo = join(dir, 'books.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const running = startCliProcess(['orders', 'import', fifo, '--merchant', 'mch_1'], env);
    const books = createWriteStream(fifo);
    const write = (text: string) =>
      new Promise<void>((resolve, reject) =>
        books.write(text, (error) => (error ? reject(error) : resolve())),
      );
    const rows = (from: number, to: number) =>
      Array.from(
        { length: to - from },
        (_, i) => `mo-${from + i},DEPOSIT,card_1,,1.00,USD,${AT},ord_${from + i}\n`,
      ).join('');
    // Opened for writing only once the import has opened it for reading.
    await new Promise((resolve) => books.once('open', resolve));
    await write(`${HEADER}\n${rows(0, 1_000)}`);
    running.child.kill('SIGINT');
    // Once interrupted the import stops reading: the rest may meet a closed pipe (EPIPE).
    books.on('error', () => {});
    books.end(rows(1_000, 20_000));

    expect(await running.exited(), running.stderr()).toBe(4);
    expect(running.stderr()).toMatch(/books\.fifo: interrupted; nothing was imported/);
    expect(existsSync(db)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.includes('.import-'))).toEqual([]);
  });
});

/**
 * SIGTERM `running`, then its exit code, or 'still running after SIGTERM' once 10 s have passed:
 * a hang guard, not a time limit, so a test can still release what the import waits on.
 */
async function stopped(
  running: ReturnType<typeof startCliProcess>,
): Promise<number | string | null> {
  running.child.kill('SIGTERM');
  let guard: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      running.exited(),
      new Promise<string>((resolve) => {
        guard = setTimeout(() => resolve('still running after SIGTERM'), 10_000);
      }),
    ]);
  } finally {
    clearTimeout(guard);
  }
}

describe('cardsync orders import stopped while its writer sends nothing', () => {
  it('stops on SIGTERM with exit 4 while the pipe stays open and silent, importing nothing and leaving no mirror behind', async () => {
    const { env, db } = freshEnv();
    // A producer that stalls (a remote `cat` over a hung connection) holds the pipe open
    // without writing: no further row comes for the import to notice the stop by.
    const fifo = join(dir, 'silent.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const running = startCliProcess(['orders', 'import', fifo, '--merchant', 'mch_1'], env);
    const books = createWriteStream(fifo);
    books.on('error', () => {});
    await new Promise((resolve) => books.once('open', resolve));
    await new Promise<void>((resolve, reject) =>
      books.write(`${HEADER}\nmo-1,DEPOSIT,card_1,,1.00,USD,${AT},ord_1\n`, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    // The writer is closed only once the import has ended or clearly ignored the stop, so an
    // import that waits for more bytes fails here.
    const code = await stopped(running);
    books.end();
    await running.exited();
    expect(code, running.stderr()).toBe(4);
    expect(running.stderr()).toMatch(/silent\.fifo: interrupted; nothing was imported/);
    expect(existsSync(db)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.startsWith(`.${basename(db)}.import-`))).toEqual(
      [],
    );
  }, 20_000);
});

describe('cardsync orders import stopped while waiting for a FIFO to be opened by its writer', () => {
  it('stops on SIGTERM with exit 4 before any writer came, importing nothing and leaving no mirror behind', async () => {
    const { env, db } = freshEnv();
    const fifo = join(dir, 'unopened.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const running = startCliProcess(['orders', 'import', fifo, '--merchant', 'mch_1'], env);
    // The scratch mirror is made just before the journal is opened.
    while (!readdirSync(dir).some((name) => name.startsWith(`.${basename(db)}.import-`))) {
      if (running.child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const code = await stopped(running);
    // Opened and closed by a writer, should the import still wait for one (ENXIO: it is gone).
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {}
    await running.exited();
    expect(code, running.stderr()).toBe(4);
    expect(running.stderr()).toMatch(/unopened\.fifo: interrupted; nothing was imported/);
    expect(existsSync(db)).toBe(false);
  }, 20_000);
});

describe('cardsync orders import killed', () => {
  it('leaves no scratch mirror behind for good when SIGKILLed while importing into a new mirror: the next import sweeps it once an hour old', async () => {
    const { env, db } = freshEnv();
    const scratches = () =>
      readdirSync(dir).filter((name) => name.startsWith(`.${basename(db)}.import-`));
    const rows = (from: number, to: number) =>
      Array.from(
        { length: to - from },
        (_, i) => `mo-${from + i},DEPOSIT,card_1,,1.00,USD,${AT},ord_${from + i}\n`,
      ).join('');
    const fifo = join(dir, 'killed.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const running = startCliProcess(['orders', 'import', fifo, '--merchant', 'mch_1'], env);
    const books = createWriteStream(fifo);
    // Opened for reading once the scratch mirror beside the target is made and migrated.
    await new Promise((resolve) => books.once('open', resolve));
    await new Promise<void>((resolve, reject) =>
      books.write(`${HEADER}\n${rows(0, 1_000)}`, (error) => (error ? reject(error) : resolve())),
    );
    running.child.kill('SIGKILL');
    books.on('error', () => {});
    books.end();
    expect(await running.exited()).toBeNull();
    expect(existsSync(db)).toBe(false);
    const left = scratches();
    expect(left.length).toBeGreaterThan(0);
    // As the killed import's files stand an hour later: no live import is still writing them.
    const hoursAgo = new Date(Date.now() - 2 * 3_600_000);
    for (const name of left) utimesSync(join(dir, name), hoursAgo, hoursAgo);

    const file = join(dir, 'killed-books.csv');
    await writeFile(file, `${HEADER}\n${rows(0, 1_000)}`);
    const again = await runCliProcess(['orders', 'import', file, '--merchant', 'mch_1'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(journaled(db)).toHaveLength(1_000);
    expect(scratches()).toEqual([]);
  });
});

describe('cardsync orders import given no file name', () => {
  it('refuses an empty FILE (an unset "$BOOKS"), naming the argument, not the working folder it would read', async () => {
    const { env, db } = freshEnv();
    const before = readdirSync(dir).sort();
    const result = await runCliProcess(['orders', 'import', '', '--merchant', 'mch_1'], env, {
      cwd: dir,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual(['cardsync: FILE: expected a path, got ""']);
    expect(existsSync(db)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});
