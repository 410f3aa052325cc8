/**
 * A client option that cannot be used; thrown by the constructor, before any request.
 * @example new CardIssuingClient({ baseUrl: 'http://x', apiKey }) // throws, key 'baseUrl'
 */
export class ClientConfigError extends Error {
  readonly code = 'CLIENT_CONFIG_INVALID' as const;
  /** The option at fault: `baseUrl`, `apiKey`, `ca`, `concurrency`, `timeouts.headersMs`... */
  readonly key: string;

  constructor(key: string, expected: string, options?: { cause?: unknown }) {
    super(`${key}: ${expected}`, options);
    this.name = 'ClientConfigError';
    this.key = key;
  }
}
