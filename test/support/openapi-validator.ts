import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
}

/**
 * Checks responses against the service's own OpenAPI document: the status must be declared for
 * the operation and the body must validate against its schema.
 */
export class OpenApiValidator {
  readonly #document: OpenApiDocument;
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(document: unknown) {
    this.#document = document as OpenApiDocument;
  }

  /** True when the document describes `method path`. */
  describes(method: string, path: string): boolean {
    return this.#document.paths[path]?.[method.toLowerCase()] !== undefined;
  }

  /**
   * The problems with a response, empty when it conforms.
   */
  problems(method: string, path: string, status: number, body: unknown): string[] {
    const operation = this.#document.paths[path]?.[method.toLowerCase()];
    if (!operation) return [`${method} ${path} is not in the OpenAPI document`];
    const response =
      operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`];
    if (!response) return [`${method} ${path} does not declare status ${status}`];
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return [`${method} ${path} ${status} declares no JSON body`];
    const key = `${method} ${path} ${status}`;
    let validate = this.#compiled.get(key);
    if (!validate) {
      validate = this.#ajv.compile(schema as object);
      this.#compiled.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${key}: ${e.instancePath} ${e.message}`);
  }
}
