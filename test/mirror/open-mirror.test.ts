import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MirrorDatabase } from '../../src/mirror/mirror-schema.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { Database } from '../../src/sqlite-driver.js';
import { mirrorErrorOf, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

/**
 * Every column of every table as `mirror-schema.ts` types it. The mapped type makes this
 * literal exhaustive and exact: a column added to or dropped from the kysely types without
 * updating this list fails the type check, and the test below compares it with the SQL.
 */
const TYPED_COLUMNS: { [T in keyof MirrorDatabase]: { [C in keyof MirrorDatabase[T]]-?: true } } = {
  merchants: {
    merchant_id: true,
    source: true,
    base_url: true,
    currency: true,
    first_seen_at: true,
    updated_at: true,
  },
  offerings: {
    id: true,
    merchant_id: true,
    name: true,
    network: true,
    type: true,
    currency: true,
    min_load_amount: true,
    min_load_amount_minor: true,
    max_load_amount: true,
    max_load_amount_minor: true,
    issuance_fee: true,
    issuance_fee_minor: true,
    deposit_fee_percent: true,
    requires_holder: true,
    version: true,
    first_seen_at: true,
    updated_at: true,
    last_seen_at: true,
  },
  offering_versions: {
    id: true,
    version: true,
    merchant_id: true,
    name: true,
    network: true,
    type: true,
    currency: true,
    min_load_amount: true,
    min_load_amount_minor: true,
    max_load_amount: true,
    max_load_amount_minor: true,
    issuance_fee: true,
    issuance_fee_minor: true,
    deposit_fee_percent: true,
    requires_holder: true,
    observed_at: true,
    run_id: true,
    previous_seen_at: true,
  },
  cards: {
    card_id: true,
    merchant_id: true,
    card_offering_id: true,
    last_four: true,
    status: true,
    balance: true,
    balance_minor: true,
    currency: true,
    created_at: true,
    observed_at: true,
    first_seen_at: true,
    updated_at: true,
    last_seen_run_id: true,
  },
  card_history: {
    card_id: true,
    merchant_id: true,
    run_id: true,
    status: true,
    balance: true,
    balance_minor: true,
    observed_at: true,
  },
  transactions: {
    transaction_id: true,
    merchant_id: true,
    card_id: true,
    trade_no: true,
    type: true,
    status: true,
    amount: true,
    amount_minor: true,
    fee: true,
    fee_minor: true,
    currency: true,
    merchant_name: true,
    created_at: true,
    first_seen_at: true,
    updated_at: true,
    updated_run_id: true,
  },
  transaction_status_changes: {
    transaction_id: true,
    merchant_id: true,
    from_status: true,
    to_status: true,
    observed_at: true,
    run_id: true,
  },
  merchant_balances: {
    snapshot_id: true,
    merchant_id: true,
    run_id: true,
    balance: true,
    balance_minor: true,
    currency: true,
    observed_at: true,
  },
  missing_cards: {
    card_id: true,
    merchant_id: true,
    answer: true,
    checked_at: true,
    run_id: true,
  },
  quarantine: {
    quarantine_id: true,
    merchant_id: true,
    resource: true,
    record_id: true,
    reason: true,
    raw_json: true,
    raw_sha256: true,
    first_seen_at: true,
    last_seen_at: true,
    last_run_id: true,
    seen_count: true,
    resolved_at: true,
  },
  sync_runs: {
    run_id: true,
    command: true,
    started_at: true,
    finished_at: true,
    outcome: true,
    exit_code: true,
    cutoff: true,
    pid: true,
    host: true,
    summary: true,
    error: true,
  },
  sync_windows: {
    run_id: true,
    merchant_id: true,
    kind: true,
    start_at: true,
    end_at: true,
    filter: true,
    expected: true,
    fetched: true,
    upserted: true,
    attempts: true,
    duration_ms: true,
    outcome: true,
    finished_at: true,
  },
  sync_progress: { merchant_id: true, start_at: true, end_at: true },
  run_lock: {
    lock_id: true,
    run_id: true,
    pid: true,
    host: true,
    acquired_at: true,
    heartbeat_at: true,
  },
  pending_reports: { run_id: true, dir: true, announced_at: true },
  vanished_transactions: {
    transaction_id: true,
    merchant_id: true,
    created_at: true,
    run_id: true,
    found_at: true,
  },
  orders: {
    merchant_order_no: true,
    merchant_id: true,
    kind: true,
    card_id: true,
    offering_id: true,
    amount: true,
    amount_minor: true,
    currency: true,
    submitted_at: true,
    order_no: true,
    state: true,
    error_code: true,
    request_json: true,
    source: true,
    import_file: true,
    import_line: true,
    created_at: true,
    updated_at: true,
  },
  recon_runs: {
    run_id: true,
    reconciled_at: true,
    merchants: true,
    coverage: true,
    current_count: true,
    new_count: true,
    resolved_count: true,
    acknowledged_count: true,
  },
  findings: {
    fingerprint: true,
    check_code: true,
    severity: true,
    merchant_id: true,
    card_id: true,
    transaction_id: true,
    order_no: true,
    merchant_order_no: true,
    trade_no: true,
    snapshot_at: true,
    offering_id: true,
    currency: true,
    expected: true,
    actual: true,
    delta: true,
    detail: true,
    state: true,
    first_seen_at: true,
    first_seen_run_id: true,
    last_seen_at: true,
    last_seen_run_id: true,
    resolved_at: true,
    resolved_run_id: true,
    ack_reason: true,
    ack_until: true,
    ack_at: true,
    ack_expected: true,
    ack_actual: true,
    expected_minor: true,
    actual_minor: true,
    delta_minor: true,
  },
  finding_events: { fingerprint: true, run_id: true, at: true, event: true, detail: true },
  schema_migrations: { version: true, name: true, applied_at: true },
};

const TABLES = Object.keys(TYPED_COLUMNS) as (keyof MirrorDatabase)[];

describe('openMirror', () => {
  it('creates the file in WAL mode with a busy timeout', () => {
    const mirror = temp.open('nested/dir/mirror.sqlite');
    expect(mirror.file).toBe(join(temp.dir(), 'nested/dir/mirror.sqlite'));
    expect(mirror.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(mirror.db.pragma('busy_timeout', { simple: true })).toBe(10_000);
  });

  it('creates a new mirror with 16 KiB pages and checkpoints its WAL at 128 MiB', () => {
    const mirror = temp.open();
    expect(mirror.db.pragma('page_size', { simple: true })).toBe(16_384);
    expect(mirror.db.pragma('wal_autocheckpoint', { simple: true })).toBe(8_192);
    expect(mirror.db.pragma('journal_size_limit', { simple: true })).toBe(128 * 1024 * 1024);
  });

  it('keeps the page size of a mirror created before, with the same checkpoint bytes', () => {
    const file = join(temp.dir(), 'older.sqlite');
    const older = new Database(file);
    older.pragma('page_size = 4096');
    // An older cardsync's mirror: it has schema_migrations (any other database is refused).
    older.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    older.close();
    const mirror = temp.open('older.sqlite');
    expect(mirror.db.pragma('page_size', { simple: true })).toBe(4_096);
    expect(mirror.db.pragma('wal_autocheckpoint', { simple: true })).toBe(32_768);
    expect(mirror.migration.to).toBeGreaterThan(0);
  });

  it('takes the busy timeout from the options', async () => {
    const mirror = openMirror(join(temp.dir(), 'short.sqlite'), { busyTimeoutMs: 250 });
    temp.defer(() => mirror.close());
    expect(mirror.db.pragma('busy_timeout', { simple: true })).toBe(250);
  });

  it('refuses a directory with MIRROR_UNOPENABLE', () => {
    mirrorErrorOf(() => openMirror(temp.dir()), 'MIRROR_UNOPENABLE');
  });

  it('refuses a path under a regular file with MIRROR_UNOPENABLE', () => {
    const file = join(temp.dir(), 'plain-file');
    writeFileSync(file, 'not a folder');
    const error = mirrorErrorOf(() => openMirror(join(file, 'mirror.sqlite')), 'MIRROR_UNOPENABLE');
    expect(error.message).toContain(join(file, 'mirror.sqlite'));
    expect(error.cause).toBeDefined();
  });

  it('refuses a file that is not SQLite with MIRROR_UNOPENABLE', () => {
    const file = join(temp.dir(), 'garbage.sqlite');
    writeFileSync(file, 'this is not a database '.repeat(100));
    mirrorErrorOf(() => openMirror(file), 'MIRROR_UNOPENABLE');
  });

  it('refuses a SQLite database of another application with MIRROR_FOREIGN, changing nothing in it', () => {
    const file = join(temp.dir(), 'other-app.sqlite');
    const other = new Database(file);
    other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')");
    other.close();
    const before = readFileSync(file);
    const error = mirrorErrorOf(() => openMirror(file), 'MIRROR_FOREIGN');
    expect(error.message).toContain(file);
    expect(readFileSync(file)).toEqual(before);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('takes an empty file as a new mirror', () => {
    const file = join(temp.dir(), 'touched.sqlite');
    writeFileSync(file, '');
    const mirror = temp.open('touched.sqlite');
    expect(mirror.migration.from).toBe(0);
    expect(mirror.migration.to).toBeGreaterThan(0);
  });

  it('declares in mirror-schema.ts exactly the tables and columns the migrations create', () => {
    const mirror = temp.open();
    const tables = mirror.db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    expect(tables).toEqual([...TABLES].sort());
    for (const table of TABLES) {
      const columns = mirror.db
        .prepare(`SELECT name FROM pragma_table_info('${table}') ORDER BY name`)
        .pluck()
        .all() as string[];
      expect({ table, columns }).toEqual({
        table,
        columns: Object.keys(TYPED_COLUMNS[table]).sort(),
      });
    }
  });

  it('lets kysely select, typed, from every table', async () => {
    const mirror = temp.open();
    const k = await mirror.kysely();
    const results = await Promise.all([
      k.selectFrom('merchants').select(['merchant_id', 'currency']).execute(),
      k.selectFrom('offerings').select(['id', 'version', 'issuance_fee_minor']).execute(),
      k.selectFrom('offering_versions').select(['id', 'version', 'run_id']).execute(),
      k.selectFrom('cards').select(['card_id', 'balance', 'balance_minor']).execute(),
      k.selectFrom('card_history').select(['card_id', 'run_id', 'observed_at']).execute(),
      k.selectFrom('transactions').select(['transaction_id', 'amount', 'amount_minor']).execute(),
      k
        .selectFrom('transaction_status_changes')
        .select(['transaction_id', 'from_status', 'to_status'])
        .execute(),
      k.selectFrom('merchant_balances').select(['snapshot_id', 'balance']).execute(),
      k.selectFrom('missing_cards').select(['card_id', 'answer']).execute(),
      k.selectFrom('quarantine').select(['quarantine_id', 'seen_count', 'resolved_at']).execute(),
      k.selectFrom('sync_runs').select(['run_id', 'outcome']).execute(),
      k.selectFrom('sync_windows').select(['run_id', 'kind', 'outcome']).execute(),
      k.selectFrom('sync_progress').select(['merchant_id', 'start_at', 'end_at']).execute(),
      k.selectFrom('run_lock').select(['run_id', 'heartbeat_at']).execute(),
      k.selectFrom('pending_reports').select(['run_id', 'dir']).execute(),
      k.selectFrom('vanished_transactions').select(['transaction_id', 'found_at']).execute(),
      k.selectFrom('orders').select(['merchant_order_no', 'state', 'amount_minor']).execute(),
      k.selectFrom('recon_runs').select(['run_id', 'current_count']).execute(),
      k.selectFrom('findings').select(['fingerprint', 'state', 'ack_until']).execute(),
      k.selectFrom('finding_events').select(['fingerprint', 'event']).execute(),
      k.selectFrom('schema_migrations').select(['version', 'name']).execute(),
    ]);
    expect(results).toHaveLength(TABLES.length);
    const migrations = results[results.length - 1] ?? [];
    expect(migrations).toEqual([
      { version: 1, name: 'mirror' },
      { version: 2, name: 'orders' },
      { version: 3, name: 'findings' },
      { version: 4, name: 'analyst_views' },
      { version: 5, name: 'status_counts' },
      { version: 6, name: 'balance_view_orders' },
      { version: 7, name: 'offering_findings' },
      { version: 8, name: 'missing_cards_per_merchant' },
      { version: 9, name: 'open_findings_kept_open' },
      { version: 10, name: 'balance_views_after_first_006' },
      { version: 11, name: 'status_order_outcomes' },
      { version: 12, name: 'findings_minor_units' },
      { version: 13, name: 'pending_reports' },
      { version: 14, name: 'exact_view_sums' },
      { version: 15, name: 'vanished_transactions' },
      { version: 16, name: 'balance_check_as_the_check' },
      { version: 17, name: 'order_outcomes_unlinked_switches' },
      { version: 18, name: 'offering_previous_seen' },
      { version: 19, name: 'sync_freshness_every_attempt' },
      { version: 20, name: 'order_outcomes_fee_quarantined' },
      { version: 21, name: 'card_secrets_out_of_old_rows' },
      { version: 22, name: 'sync_freshness_latest_recorded' },
      { version: 23, name: 'open_findings_latest_recorded' },
      { version: 24, name: 'order_outcomes_orderless_switches' },
      { version: 25, name: 'offering_previous_seen_backfill' },
    ]);
    for (const table of TABLES) {
      await expect(k.selectFrom(table).selectAll().execute()).resolves.toBeInstanceOf(Array);
    }
  });

  it('closes both the raw handle and kysely', async () => {
    const mirror = openMirror(join(temp.dir(), 'closing.sqlite'));
    await mirror.close();
    expect(mirror.db.open).toBe(false);
    await mirror.close();
  });
});
