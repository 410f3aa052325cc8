/**
 * The first and last `createdAt` of a batch (ISO text, compared as text, as SQLite's `BETWEEN`
 * does): the span the writers read the mirror's stored rows over before writing the batch.
 */
export function createdAtSpan(batch: readonly { readonly createdAt: string }[]): [string, string] {
  let first = (batch[0] as { createdAt: string }).createdAt;
  let last = first;
  for (const { createdAt } of batch) {
    if (createdAt < first) first = createdAt;
    else if (createdAt > last) last = createdAt;
  }
  return [first, last];
}

/**
 * How many stored rows a batch of `size` reads over its span: a span thick with rows the batch
 * does not hold (a re-read of one status, a list in no order of creation) then costs no more
 * than the lookups it saves. What the read leaves out is looked up as before.
 */
export function spanReadLimit(size: number): number {
  return 2 * size + 100;
}
