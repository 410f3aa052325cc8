import type { ProgressSink } from '../sync/progress-sink.js';

/**
 * Draws one progress line on a terminal: phase, windows done, rows, rows/s and an ETA over the
 * rows known to be expected so far. Redrawn at most a few times a second.
 */
export class TerminalProgress implements ProgressSink {
  readonly #write: (text: string) => void;
  readonly #now: () => number;
  #label = '';
  #expected = 0;
  #rows = 0;
  #windows = 0;
  #started: number;
  #drawnAt = 0;

  constructor(write: (text: string) => void, now: () => number = Date.now) {
    this.#write = write;
    this.#now = now;
    this.#started = now();
  }

  expect(rows: number): void {
    this.#expected += rows;
  }

  advance(rows: number): void {
    this.#rows += rows;
    this.#draw(false);
  }

  windowDone(): void {
    this.#windows += 1;
  }

  phase(label: string): void {
    this.#label = label;
    this.#draw(true);
  }

  /** Clear the line before the summary is printed. */
  finish(): void {
    this.#write('\r\x1b[2K');
  }

  #draw(force: boolean): void {
    const now = this.#now();
    if (!force && now - this.#drawnAt < 200) return;
    this.#drawnAt = now;
    const seconds = Math.max(0.001, (now - this.#started) / 1000);
    const rate = Math.round(this.#rows / seconds);
    const left = Math.max(0, this.#expected - this.#rows);
    const eta = rate > 0 && left > 0 ? ` · ETA ${Math.ceil(left / rate)} s` : '';
    this.#write(
      `\r\x1b[2K${this.#label} · windows ${this.#windows} · ${this.#rows.toLocaleString('en-US')} rows · ${rate.toLocaleString('en-US')} rows/s${eta}`,
    );
  }
}
