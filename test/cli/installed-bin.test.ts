import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  version: string;
  bin: { cardsync: string };
};

describe('the built cardsync program', () => {
  // npx runs the file package.json names as a program: without its execute bits (a build into
  // a fresh dist/ writes it 0644), `npx cardsync` fails with "Permission denied".
  it('is executable as package.json names it, and runs as a program', () => {
    const file = `${root}${manifest.bin.cardsync}`;
    expect(statSync(file).mode & 0o111).toBe(0o111);
    const result = spawnSync(file, ['--version'], { encoding: 'utf8' });
    expect(result.error).toBeUndefined();
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(manifest.version);
  });
});
