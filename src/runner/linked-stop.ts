import { setMaxListeners } from 'node:events';

/** A signal that stops when any of its sources does, and how to let go of them. */
export interface LinkedStop {
  readonly signal: AbortSignal;
  /** Detach from the sources: nothing of this stop stays on them. */
  unlink(): void;
}

/**
 * A stop for one run that follows longer-lived signals (the process's SIGTERM stop) without
 * leaving anything on them once unlinked. AbortSignal.any files a WeakRef to its signal under
 * each source, which Node never prunes: under `schedule`, one more per tick for months.
 * @example const stop = linkedStop([io.signal, lost]); try { await work(stop.signal); } finally { stop.unlink(); }
 */
export function linkedStop(sources: readonly AbortSignal[]): LinkedStop {
  const stop = new AbortController();
  // Every request in flight listens to it.
  setMaxListeners(0, stop.signal);
  const links = sources.map((source) => {
    const forward = () => stop.abort(source.reason);
    if (source.aborted) forward();
    else source.addEventListener('abort', forward, { once: true });
    return () => source.removeEventListener('abort', forward);
  });
  return {
    signal: stop.signal,
    unlink: () => {
      for (const unlink of links) unlink();
    },
  };
}
