import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw } from 'node:zlib';

type Decoder = (bytes: Buffer, limit: { maxOutputLength: number }) => Promise<Buffer>;

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);
const inflateRawAsync = promisify(inflateRaw);
const brotliAsync = promisify(brotliDecompress);

const DECODERS: Readonly<Record<string, Decoder>> = {
  gzip: (bytes, limit) => gunzipAsync(bytes, limit),
  'x-gzip': (bytes, limit) => gunzipAsync(bytes, limit),
  // "deflate" is the zlib format (RFC 9110), but some servers send the raw one.
  deflate: (bytes, limit) =>
    inflateAsync(bytes, limit).catch((error: unknown) =>
      isTooLarge(error) ? Promise.reject(error) : inflateRawAsync(bytes, limit),
    ),
  br: (bytes, limit) => brotliAsync(bytes, limit),
};

/** True for zlib's refusal to decode past `maxOutputLength`. */
export function isTooLarge(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ERR_BUFFER_TOO_LARGE';
}

/** A `content-encoding` the client cannot undo; the body cannot be read. */
export class UnknownContentCodingError extends Error {
  readonly code = 'UNKNOWN_CONTENT_CODING' as const;
  readonly coding: string;

  constructor(coding: string) {
    super(`content-encoding ${JSON.stringify(coding.slice(0, 40))} is not one the client reads`);
    this.name = 'UnknownContentCodingError';
    this.coding = coding;
  }
}

/**
 * The body with its content codings undone, last applied first; no bytes stay no bytes. The client names none in
 * `accept-encoding`, which RFC 9110 reads as any being acceptable, so a server may gzip (or
 * deflate, or brotli) its answers unasked.
 * @throws UnknownContentCodingError for any other coding; zlib's error for a corrupt body, or
 * ERR_BUFFER_TOO_LARGE (see {@link isTooLarge}) for one that decodes to over `maxBytes`.
 * @example await decodeContent(gzipSync(json), 'gzip', 1 << 24) // the JSON's bytes
 */
export async function decodeContent(
  bytes: Buffer,
  header: string | undefined,
  maxBytes: number,
): Promise<Buffer> {
  const codings = (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  const decoders = codings.reverse().map((coding) => {
    const decoder = DECODERS[coding];
    if (decoder === undefined) throw new UnknownContentCodingError(coding);
    return decoder;
  });
  // No bytes is no content (a 204 answering an order), not an empty gzip, which has a header:
  // servers name their coding on such an answer too, and zlib refused it as cut short.
  if (bytes.length === 0) return bytes;
  let decoded = bytes;
  for (const decoder of decoders) decoded = await decoder(decoded, { maxOutputLength: maxBytes });
  return decoded;
}
