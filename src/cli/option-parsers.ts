import { isKnownCurrency } from '../money/currency.js';
import { UsageError } from './exit-codes.js';

/** A whole number in `[min, max]` for flag `flag`. */
export function integerOption(flag: string, min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new UsageError(
        `${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`,
      );
    }
    return Number(value);
  };
}

/** A fraction in `[0, 1]` for flag `flag`, written as decimal text. */
export function fractionOption(flag: string) {
  return (value: string): number => {
    if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value)) {
      throw new UsageError(`${flag} must be a number from 0 to 1, got ${JSON.stringify(value)}`);
    }
    return Number(value);
  };
}

/** A comma-separated list of known currency codes; an empty item (`USD,,JPY`, `""`) is quoted as one. */
export function currencyListOption(flag: string) {
  return (value: string): string[] => {
    const codes = value.split(',').map((c) => c.trim().toUpperCase());
    const unknown = codes.filter((c) => !isKnownCurrency(c));
    if (codes.length === 0 || unknown.length > 0) {
      throw new UsageError(
        `${flag} must be ISO 4217 codes separated by commas (e.g. USD,JPY); unknown: ${unknown.map((c) => JSON.stringify(c.slice(0, 40))).join(', ')}`,
      );
    }
    return codes;
  };
}

/** A delay in milliseconds, or `manual`. */
export function delayOption(flag: string) {
  const integer = integerOption(flag, 0, 86_400_000);
  return (value: string): number | 'manual' => {
    if (value === 'manual') return 'manual';
    try {
      return integer(value);
    } catch {
      throw new UsageError(
        `${flag} must be milliseconds from 0 to 86400000 or "manual", got ${JSON.stringify(value)}`,
      );
    }
  };
}

/** A pino log level. */
export function logLevelOption(flag: string) {
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  return (value: string): string => {
    if (!levels.includes(value))
      throw new UsageError(
        `${flag} must be one of ${levels.join(', ')}, got ${JSON.stringify(value)}`,
      );
    return value;
  };
}

/**
 * Text that is not empty for flag `flag`, `what` saying what it should be: an empty `--host`
 * would listen on every interface, an empty path would mean the working folder.
 * @example nonEmptyOption('--state-dir', 'a path')('') // throws "--state-dir: expected a path, got """
 */
export function nonEmptyOption(flag: string, what: string) {
  return (value: string): string => {
    if (value === '') throw new UsageError(`${flag}: expected ${what}, got ""`);
    return value;
  };
}
