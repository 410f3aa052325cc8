import { type Agent, request } from 'undici';
import type { OpenApiValidator } from './openapi-validator.js';

/** A response as the tests see it. */
export interface ApiResponse<T = any> {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: T;
  readonly text: string;
}

/** Options of one request. */
export interface CallOptions {
  readonly query?: Record<string, string | number | undefined>;
  readonly body?: unknown;
  /** Raw body text (sent as is, with the given content type). */
  readonly rawBody?: string | Buffer;
  readonly contentType?: string;
  /** API key to send; `null` sends none. Defaults to the client's key. */
  readonly key?: string | null;
  readonly headers?: Record<string, string>;
}

/**
 * A real HTTPS client for the sandbox (undici, the test CA trusted, verification on). Every
 * response to a documented operation is checked against the OpenAPI document; a mismatch fails
 * the call, so no test can pass on a response that breaks the contract.
 */
export class ApiClient {
  readonly baseUrl: string;
  readonly #agent: Agent;
  readonly #key: string | undefined;
  readonly #validator: OpenApiValidator | undefined;
  readonly #extraHeaders: Record<string, string>;

  constructor(options: {
    baseUrl: string;
    agent: Agent;
    key?: string;
    validator?: OpenApiValidator;
    headers?: Record<string, string>;
  }) {
    this.baseUrl = options.baseUrl;
    this.#agent = options.agent;
    this.#key = options.key;
    this.#validator = options.validator;
    this.#extraHeaders = options.headers ?? {};
  }

  /** The same client with another key. */
  withKey(key: string): ApiClient {
    return new ApiClient({
      baseUrl: this.baseUrl,
      agent: this.#agent,
      key,
      ...(this.#validator ? { validator: this.#validator } : {}),
      headers: this.#extraHeaders,
    });
  }

  async get<T = any>(path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    return this.call<T>('GET', path, options);
  }

  async post<T = any>(
    path: string,
    body: unknown,
    options: CallOptions = {},
  ): Promise<ApiResponse<T>> {
    return this.call<T>('POST', path, { ...options, body });
  }

  async call<T = any>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
    path: string,
    options: CallOptions = {},
  ): Promise<ApiResponse<T>> {
    const url = new URL(path, this.baseUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { ...this.#extraHeaders, ...options.headers };
    const key = options.key === undefined ? this.#key : options.key;
    if (key !== null && key !== undefined) headers['x-api-key'] = key;
    let body: string | Buffer | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      if (options.contentType) headers['content-type'] = options.contentType;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const response = await request(url, { method, headers, body, dispatcher: this.#agent });
    const text = await response.body.text();
    let parsed: unknown;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (this.#validator?.describes(method, url.pathname)) {
      const problems = this.#validator.problems(method, url.pathname, response.statusCode, parsed);
      if (problems.length > 0) {
        throw new Error(
          `response breaks the OpenAPI document:\n${problems.join('\n')}\nbody: ${text}`,
        );
      }
    }
    return { status: response.statusCode, headers: response.headers, body: parsed as T, text };
  }
}
