import { writeFile } from 'node:fs/promises';
import { createLogger } from '../../log/logger.js';
import { openApiDocument } from '../../sandbox/openapi-document.js';
import type { CliIo } from '../cli-io.js';
import type { OpenApiFlags } from '../commands/openapi-command.js';
import { UsageError } from '../exit-codes.js';

/** The body of `cardsync openapi`: the document, built from the embedded service's routes. */
export async function openApiAction(io: CliIo, flags: OpenApiFlags): Promise<void> {
  const document = await openApiDocument(createLogger({ level: 'silent' }));
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (flags.out === undefined)
    return io.stdout(flags.json ? `${JSON.stringify(document)}\n` : text);
  try {
    await writeFile(flags.out, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new UsageError(
      `--out ${flags.out}: expected a file this user can write, cannot write it (${code})`,
    );
  }
  if (flags.json) io.stdout(`${JSON.stringify({ out: flags.out })}\n`);
}
