import { describe, expect, it } from 'vitest';
import { DEFAULT_RECON_SETTINGS, reconSettings } from '../../src/recon/recon-settings.js';
import { ReconSettingsError } from '../../src/recon/recon-settings-error.js';

describe('reconciliation settings', () => {
  it('default to grace 1 h, staleAfter 7 days, tolerance 0, half-up, every check on', () => {
    expect(DEFAULT_RECON_SETTINGS.graceMs).toBe(3_600_000);
    expect(DEFAULT_RECON_SETTINGS.staleAfterMs).toBe(7 * 86_400_000);
    expect(DEFAULT_RECON_SETTINGS.quietMs).toBe(120_000);
    expect(DEFAULT_RECON_SETTINGS.depositFeeRounding).toBe('half-up');
    expect(Object.values(DEFAULT_RECON_SETTINGS.tolerances).every((t) => t === 0)).toBe(true);
    expect(Object.values(DEFAULT_RECON_SETTINGS.enabled).every((on) => on)).toBe(true);
    expect(Object.isFrozen(DEFAULT_RECON_SETTINGS)).toBe(true);
    expect(Object.isFrozen(DEFAULT_RECON_SETTINGS.tolerances)).toBe(true);
  });

  it('take overrides and keep the rest', () => {
    const settings = reconSettings({
      graceMs: 7_200_000,
      tolerances: { CARD_BALANCE_MISMATCH: 1 },
      checks: { UNJOURNALED_CARD: false },
    });
    expect(settings.graceMs).toBe(7_200_000);
    expect(settings.tolerances.CARD_BALANCE_MISMATCH).toBe(1);
    expect(settings.tolerances.OVER_REFUND).toBe(0);
    expect(settings.enabled.UNJOURNALED_CARD).toBe(false);
    expect(settings.enabled.NEGATIVE_BALANCE).toBe(true);
  });

  it.each([
    [{ graceMs: -1 }, 'graceMs'],
    [{ staleAfterMs: 1.5 }, 'staleAfterMs'],
    [{ tolerances: { NEGATIVE_BALANCE: 1 } }, 'tolerances.NEGATIVE_BALANCE'],
    [{ tolerances: { OVER_REFUND: -2 } }, 'tolerances.OVER_REFUND'],
    [{ depositFeeRounding: 'bankers' }, 'depositFeeRounding'],
    [{ checks: { NO_SUCH_CHECK: false } }, 'checks.NO_SUCH_CHECK'],
  ])('refuse %j, naming %s', (input, key) => {
    let error: unknown;
    try {
      reconSettings(input as Parameters<typeof reconSettings>[0]);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ReconSettingsError);
    expect((error as ReconSettingsError).key).toBe(key);
    expect((error as ReconSettingsError).message).toMatch(
      new RegExp(`^${key.replace('.', '\\.')}: expected`),
    );
  });
});
