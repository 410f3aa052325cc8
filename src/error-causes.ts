/**
 * `error` and the errors it was caused by (`cause`), in order, each once: a cycle in the chain
 * ends the walk rather than hanging an exit.
 * @example [...causeChain(new Error('a', { cause: new Error('b') }))].map((e) => e.message) // ['a', 'b']
 */
export function* causeChain(error: unknown): Generator<Error> {
  const seen = new Set<unknown>();
  for (let e = error; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    yield e;
  }
}

/** The `code` of `error` when it is text (`SQLITE_FULL`, `MIRROR_LOCKED`), else undefined. */
export function textCode(error: Error): string | undefined {
  const { code } = error as { code?: unknown };
  return typeof code === 'string' ? code : undefined;
}

/**
 * The code of `error` or of the first error in its cause chain that has one, else undefined.
 * @example firstCode(new Error('a', { cause: Object.assign(new Error('b'), { code: 'SQLITE_FULL' }) })) // 'SQLITE_FULL'
 */
export function firstCode(error: unknown): string | undefined {
  for (const e of causeChain(error)) {
    const code = textCode(e);
    if (code !== undefined) return code;
  }
  return undefined;
}
