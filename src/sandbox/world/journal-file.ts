import { closeSync, openSync, writeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import type { OrderKind } from '../../contract/index.js';
import { JOURNAL_COLUMNS } from '../../contract/reference-model.js';

/** A row of a merchant's order journal (reference-model section 5). */
export interface JournalRow {
  readonly merchantOrderNo: string;
  readonly kind: OrderKind | 'TOPUP';
  readonly cardId: string;
  readonly offeringId: string;
  readonly amount: string;
  readonly currency: string;
  readonly submittedAt: string;
  readonly orderNo: string;
}

/** RFC 4180 records end with CRLF (reference-model section 5 names RFC 4180). */
const RFC_4180 = { record_delimiter: 'windows' } as const;

/** An RFC 4180 journal file written row batch by row batch, so memory stays bounded. */
export class JournalFile {
  readonly path: string;
  readonly #fd: number;

  constructor(path: string) {
    this.path = path;
    this.#fd = openSync(path, 'w');
    writeSync(
      this.#fd,
      stringify([], { ...RFC_4180, header: true, columns: [...JOURNAL_COLUMNS] }),
    );
  }

  /** Append rows. */
  append(rows: readonly JournalRow[]): void {
    if (rows.length === 0) return;
    writeSync(
      this.#fd,
      stringify(rows as JournalRow[], { ...RFC_4180, columns: [...JOURNAL_COLUMNS] }),
    );
  }

  close(): void {
    closeSync(this.#fd);
  }
}
