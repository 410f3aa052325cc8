import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { createLogger } from '../../log/logger.js';
import { openApiDocument } from '../../sandbox/openapi-document.js';
import type { CliIo } from '../cli-io.js';

/** `cardsync openapi`: print (or write) the OpenAPI 3.1 document of the interface. */
export function registerOpenApiCommand(program: Command, io: CliIo): void {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of the card-issuing interface')
    .option('--out <file>', 'write it to this file instead of stdout')
    .action(async (flags: { out?: string }) => {
      const text = `${JSON.stringify(await openApiDocument(createLogger({ level: 'silent' })), null, 2)}\n`;
      if (flags.out) await writeFile(flags.out, text);
      else io.stdout(text);
    });
}
