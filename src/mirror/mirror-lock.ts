import { hostname } from 'node:os';
import { MirrorError } from './mirror-error.js';
import type { SqliteDatabase } from './sqlite-database.js';

/** Run ids whose lock this process holds. */
const HELD_HERE = new Set<string>();

/** Who holds the lock. */
export interface LockHolder {
  readonly runId: string;
  readonly pid: number;
  readonly host: string;
  readonly acquiredAt: string;
  readonly heartbeatAt: string;
}

/** Options of {@link acquireMirrorLock}; the defaults describe this process. */
export interface LockOptions {
  readonly runId: string;
  readonly pid?: number;
  readonly host?: string;
  readonly now?: () => number;
  /** A holder whose heartbeat is older than this is presumed dead (default 2 minutes). */
  readonly staleAfterMs?: number;
  /** Whether a process id is alive on this host (default: `process.kill(pid, 0)`). */
  readonly isAlive?: (pid: number) => boolean;
}

/** A held lock: keep it fresh while working, release it at the end. */
export interface MirrorLock {
  /** The holder this lock replaced because it had died (a crashed run), if any. */
  readonly replaced: LockHolder | null;
  /** Refresh the heartbeat; false when another run has taken the lock over since. */
  heartbeat(): boolean;
  release(): void;
}

/**
 * Take the mirror's single-writer lock, a row in the mirror itself so it travels with the
 * file. A holder that died (its process is gone on this host, or its heartbeat is stale) is
 * replaced at once, so a run killed by SIGKILL never blocks the next one.
 * @throws MirrorError MIRROR_LOCKED naming the live holder.
 */
export function acquireMirrorLock(db: SqliteDatabase, options: LockOptions): MirrorLock {
  const pid = options.pid ?? process.pid;
  const host = options.host ?? hostname();
  const now = options.now ?? Date.now;
  const stamp = () => new Date(now()).toISOString();

  const replaced = db
    .transaction((): LockHolder | null => {
      const holder = readHolder(db);
      if (holder) {
        if (holderIsLive(holder, { ...options, pid, host, now }))
          throw new MirrorError(
            'MIRROR_LOCKED',
            `another run (${holder.runId}, pid ${holder.pid} on ${holder.host}, since ${holder.acquiredAt}) holds the lock on this mirror`,
          );
        db.prepare('DELETE FROM run_lock WHERE lock_id = 1').run();
      }
      const at = stamp();
      db.prepare(
        'INSERT INTO run_lock (lock_id, run_id, pid, host, acquired_at, heartbeat_at) VALUES (1, ?, ?, ?, ?, ?)',
      ).run(options.runId, pid, host, at, at);
      return holder;
    })
    .immediate();
  HELD_HERE.add(options.runId);

  const mine = 'WHERE lock_id = 1 AND run_id = ? AND pid = ?';
  return {
    replaced,
    heartbeat: () => {
      const held = db
        .prepare(`UPDATE run_lock SET heartbeat_at = ? ${mine}`)
        .run(stamp(), options.runId, pid);
      return held.changes === 1;
    },
    release: () => {
      HELD_HERE.delete(options.runId);
      if (db.open) db.prepare(`DELETE FROM run_lock ${mine}`).run(options.runId, pid);
    },
  };
}

/** The current holder of the lock, if any. */
export function readHolder(db: SqliteDatabase): LockHolder | null {
  const row = db
    .prepare(
      'SELECT run_id AS runId, pid, host, acquired_at AS acquiredAt, heartbeat_at AS heartbeatAt FROM run_lock WHERE lock_id = 1',
    )
    .get() as LockHolder | undefined;
  return row ?? null;
}

/**
 * Whether `holder` is a run still at work: its heartbeat is fresh and, on this host, its
 * process is alive. Our own pid on a lock this process never took is a previous incarnation (a
 * container restarted under the same pid), not a live holder.
 */
export function holderIsLive(holder: LockHolder, options: Partial<LockOptions> = {}): boolean {
  const pid = options.pid ?? process.pid;
  const host = options.host ?? hostname();
  const now = options.now ?? Date.now;
  const isAlive = options.isAlive ?? processIsAlive;
  const stale = now() - Date.parse(holder.heartbeatAt) > (options.staleAfterMs ?? 120_000);
  const ours = holder.pid === pid && !HELD_HERE.has(holder.runId);
  const dead = holder.host === host && (ours || !isAlive(holder.pid));
  return !stale && !dead;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
