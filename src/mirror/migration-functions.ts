import { redactCardNumbers, redactCardSecrets } from '../contract/card-secrets.js';
import { rawSha256 } from './quarantine-writer.js';
import type { SqliteDatabase } from './sqlite-database.js';

/**
 * Give `db` the SQL functions a migration in `sql/` may call where SQL alone cannot follow the
 * job's own rule: card numbers and CVVs replaced as src/contract/card-secrets.ts replaces them
 * (`cardsync_redact_card_numbers(text)`, `cardsync_redact_card_secrets(json)`), and the sha256
 * the quarantine keys its raw JSON by (`cardsync_sha256(text)`: {@link rawSha256}). NULL stays
 * NULL. Only cardsync applies migrations, so an analyst's tool never needs them.
 */
export function registerMigrationFunctions(db: SqliteDatabase): void {
  const options = { deterministic: true };
  const onText =
    (change: (text: string) => string) =>
    (value: unknown): unknown =>
      typeof value === 'string' ? change(value) : value;
  db.function('cardsync_redact_card_numbers', options, onText(redactCardNumbers));
  db.function('cardsync_redact_card_secrets', options, onText(redactCardSecrets));
  db.function('cardsync_sha256', options, onText(rawSha256));
}
