import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../support/cli-process.js';

describe('cardsync help', () => {
  it.each([[[]], [['cards']], [['orders']], [['findings']]])(
    'prints the help on stderr and exits 2 (usage) for %j: a command is missing or unknown',
    async (args) => {
      const result = await runCliProcess(args);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/^Usage: cardsync/);
      expect(result.stdout).toBe('');
    },
  );

  it.each([
    [['help', 'synk'], 'synk', 'sync'],
    [['cards', 'help', 'lst'], 'lst', 'list'],
    [['help', 'bogus'], 'bogus', undefined],
  ])(
    'refuses the unknown command of %j in one line, as without help, and exits 2',
    async (args, word, meant) => {
      const result = await runCliProcess(args);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.split('\n')[0]).toBe(`error: unknown command '${word}'`);
      if (meant) expect(result.stderr).toContain(`(Did you mean ${meant}?)`);
      expect(result.stderr).not.toContain('Usage:');
      expect(result.stdout).toBe('');
    },
  );

  it.each([
    [['--help']],
    [['help']],
    [['help', 'cards']],
    [['cards', '--help']],
    [['cards', 'help', 'freeze']],
    [['findings', 'list', '--help']],
  ])('prints the help asked for with %j on stdout and exits 0', async (args) => {
    const result = await runCliProcess(args);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage: cardsync/);
    expect(result.stderr).toBe('');
  });
});
