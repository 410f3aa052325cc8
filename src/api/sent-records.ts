import { parseExactly } from '../contract/exact-json.js';

/**
 * The records of an answer as the upstream wrote them, for the ones the client refuses: the
 * body text read again with its numbers kept as written (see src/contract/exact-json.ts), once
 * and only when a record is asked for, so an answer whose records all pass costs nothing more.
 * @example new SentRecords('{"data":[{"amount":12.50}]}').record(0, parsed) // { amount: 12.50 }
 */
export class SentRecords {
  readonly #text: string | undefined;
  #data: unknown;
  #read = false;

  /** @param text the answer's body text, `JSON.parse`d already; undefined when not at hand. */
  constructor(text: string | undefined) {
    this.#text = text;
  }

  /**
   * Item `index` of the answer's `data` list (its `data` itself when `index` is undefined) as
   * written; `parsed` when the text is not at hand, does not parse or lacks it.
   */
  record(index: number | undefined, parsed: unknown): unknown {
    if (!this.#read) {
      this.#read = true;
      const body = this.#text === undefined ? undefined : parseExactly(this.#text);
      if (typeof body === 'object' && body !== null && !Array.isArray(body))
        this.#data = (body as { data?: unknown }).data;
    }
    if (index === undefined) return this.#data ?? parsed;
    return Array.isArray(this.#data) && index < this.#data.length ? this.#data[index] : parsed;
  }
}
