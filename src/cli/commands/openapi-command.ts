import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { nonEmptyOption } from '../option-parsers.js';

/** The flags of `cardsync openapi`. */
export interface OpenApiFlags {
  out?: string;
  json: boolean;
}

/** `cardsync openapi`: print (or write) the OpenAPI 3.1 document of the interface. */
export function registerOpenApiCommand(program: Command, io: CliIo): void {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of the card-issuing interface')
    .option(
      '--out <file>',
      'write it to this file instead of stdout',
      nonEmptyOption('--out', 'a path'),
    )
    .option(
      '--json',
      'machine output: the document on one line, or {"out": FILE} with --out',
      false,
    )
    .action(async (flags: OpenApiFlags) => {
      const { openApiAction } = await import('../actions/openapi-action.js');
      await openApiAction(io, flags);
    });
}
