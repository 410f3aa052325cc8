import pLimit from 'p-limit';

/**
 * Run `work` over `jobs` with at most `concurrency` at once, where a job may hand back more
 * jobs (a window split in parts). The first error stops new jobs from starting; jobs already
 * running finish (their results are committed by `work` itself) and the error is thrown.
 * An aborted `signal` stops new jobs the same way.
 */
export async function runWorkPool<J>(
  jobs: readonly J[],
  work: (job: J) => Promise<readonly J[]>,
  options: {
    concurrency: number;
    signal?: AbortSignal;
    /** Told of the first error at once, before the jobs already running finish. */
    onFailure?: (error: unknown) => void;
  },
): Promise<void> {
  const limit = pLimit(options.concurrency);
  let failure: { error: unknown } | null = null;
  const running = new Set<Promise<void>>();

  const schedule = (job: J): void => {
    const task = limit(async () => {
      if (failure || options.signal?.aborted) return;
      try {
        const more = await work(job);
        for (const next of more) schedule(next);
      } catch (error) {
        // Set before the slot frees, so no queued job starts after a failure.
        if (!failure) {
          failure = { error };
          options.onFailure?.(error);
        }
      }
    }).finally(() => running.delete(task));
    running.add(task);
  };

  for (const job of jobs) schedule(job);
  while (running.size > 0) await Promise.all(running);
  if (failure) throw (failure as { error: unknown }).error;
}
