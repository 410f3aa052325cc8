import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { resolveReconSettings } from '../../src/config/recon-config.js';

/** The ConfigError `resolve` throws; fails when it throws none. */
function configError(resolve: () => unknown): ConfigError {
  try {
    resolve();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  return expect.fail('expected a ConfigError');
}

describe('resolveReconSettings: lists of CODE=value', () => {
  it('refuses an empty --tolerance or --check (an unset shell variable), as any other empty flag', () => {
    expect(configError(() => resolveReconSettings({ tolerance: [''] }, {})).message).toBe(
      '--tolerance: expected CODE=N (minor units), got ""',
    );
    expect(configError(() => resolveReconSettings({ check: [' '] }, {})).message).toBe(
      '--check: expected CODE=on or CODE=off, got ""',
    );
  });

  it('skips the empty items of a variable’s comma-separated list (a trailing comma)', () => {
    const settings = resolveReconSettings(
      {},
      {
        CARDSYNC_RECON_TOLERANCES: 'OVER_REFUND=5,',
        CARDSYNC_RECON_CHECKS: ',STALE_PENDING=off',
      },
    );
    expect(settings.tolerances.OVER_REFUND).toBe(5);
    expect(settings.enabled.STALE_PENDING).toBe(false);
  });

  it('refuses a check code given twice in one flag list or variable, as the config file refuses a key given twice', () => {
    expect(
      configError(() => resolveReconSettings({ tolerance: ['OVER_REFUND=5', 'over_refund=6'] }, {}))
        .message,
    ).toBe('--tolerance: expected each check code once, got OVER_REFUND again');
    expect(
      configError(() =>
        resolveReconSettings({}, { CARDSYNC_RECON_CHECKS: 'STALE_PENDING=off,STALE_PENDING=on' }),
      ).message,
    ).toBe('CARDSYNC_RECON_CHECKS: expected each check code once, got STALE_PENDING again');
  });

  it('lets a flag override the variable per check code', () => {
    const settings = resolveReconSettings(
      { check: ['STALE_PENDING=on'], tolerance: ['OVER_REFUND=7'] },
      { CARDSYNC_RECON_CHECKS: 'STALE_PENDING=off', CARDSYNC_RECON_TOLERANCES: 'OVER_REFUND=5' },
      { checks: { STALE_PENDING: false }, tolerances: { OVER_REFUND: 3 } },
    );
    expect(settings.enabled.STALE_PENDING).toBe(true);
    expect(settings.tolerances.OVER_REFUND).toBe(7);
  });
});
