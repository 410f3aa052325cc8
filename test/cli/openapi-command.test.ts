import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../support/cli-process.js';

describe('cardsync openapi --out', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-openapi-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('writes the document to the file', async () => {
    const out = join(dir, 'openapi.json');
    const result = await runCliProcess(['openapi', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(await readFile(out, 'utf8'))).toMatchObject({ openapi: '3.1.0' });
  });

  it('exits 2 with one line naming --out when the file cannot be written', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a folder\n');
    for (const [out, code] of [
      [join(file, 'openapi.json'), 'ENOTDIR'],
      [dir, 'EISDIR'],
    ] as const) {
      const result = await runCliProcess(['openapi', '--out', out]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toBe(
        `cardsync: --out ${out}: expected a file this user can write, cannot write it (${code})\n`,
      );
    }
  });

  it('exits 2 naming --out when it is given empty, instead of printing on stdout', async () => {
    const result = await runCliProcess(['openapi', '--out', '']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe('cardsync: --out: expected a path, got ""\n');
    expect(result.stdout).toBe('');
  });

  it('takes --json, as every command does (job-interface.md): the document on one line, or an error object', async () => {
    const result = await runCliProcess(['openapi', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ openapi: '3.1.0' });
    const out = join(dir, 'by-json.json');
    const written = await runCliProcess(['openapi', '--json', '--out', out]);
    expect(written.code, written.stderr).toBe(0);
    expect(JSON.parse(written.stdout)).toEqual({ out });
    expect(JSON.parse(await readFile(out, 'utf8'))).toMatchObject({ openapi: '3.1.0' });
    const failed = await runCliProcess(['openapi', '--json', '--out', dir]);
    expect(failed.code).toBe(2);
    expect(JSON.parse(failed.stdout)).toMatchObject({
      exitCode: 2,
      error: { message: expect.stringContaining('--out') },
    });
  });
});
