import { readFileSync } from 'node:fs';

/** A running sample of a process's peak resident set. */
export interface PeakRssSampler {
  /** Stop polling; the peak in KiB (0 when no read ever succeeded). */
  stop(): number;
  /** Read once more now (call on the child's `exit`, before it is reaped, when possible). */
  sample(): void;
}

/**
 * Poll `/proc/<pid>/status` for VmHWM (the kernel's own high-water mark of the resident set,
 * in kB) every `intervalMs`. VmHWM is already a peak, so the last read that succeeds before the
 * process exits is the answer; once the process is a zombie its memory map is gone and the line
 * disappears, so a failed read keeps the previous value rather than resetting it.
 */
export function samplePeakRss(pid: number, intervalMs = 100): PeakRssSampler {
  let peakKiB = 0;
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
      if (match) peakKiB = Math.max(peakKiB, Number(match[1]));
    } catch {
      // Exited and reaped between two polls: keep the last reading.
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    sample,
    stop: () => {
      clearInterval(timer);
      return peakKiB;
    },
  };
}
