-- 021: card numbers and CVVs an older cardsync kept in the mirror are replaced, as today's
-- cardsync replaces them before it writes (docs/journal.md, "Card numbers and CVVs").
--
-- A cardsync of schema 13 or older kept a malformed record in the quarantine as sent, a card's
-- full number or CVV included, in `raw_json` and `reason` (one of schema 19 or older still kept
-- a number sent as a JSON number, or a CVV under `securityCode`); one of schema 18 or older kept
-- a valid transaction's `merchant_name` as sent, where a processor's descriptor may carry the
-- card's full number. Upgrading left them in the analysts' file. They are replaced here by the
-- rule of src/contract/card-secrets.ts, the functions `cardsync_*` (src/mirror/
-- migration-functions.ts): `[redacted]` for the value of a field named as a card number or CVV,
-- and for a run of 13-19 digits that passes the Luhn check; the rest of each row is kept.
--
-- The quarantine keeps one row per record by the sha256 of its raw JSON, and the JSON kept is
-- now the redacted one: a record quarantined before the redaction and again after it was two
-- rows, counted twice. Rows that now read alike become one: the row seen last, with the first
-- sighting and the sightings of them all.
CREATE TEMP TABLE quarantine_redacted AS
SELECT quarantine_id, merchant_id, resource, first_seen_at, last_seen_at, seen_count, raw_json,
       reason, cardsync_sha256(raw_json) AS raw_sha256
FROM (SELECT quarantine_id, merchant_id, resource, first_seen_at, last_seen_at, seen_count,
             cardsync_redact_card_secrets(raw_json) AS raw_json,
             cardsync_redact_card_numbers(reason) AS reason
      FROM quarantine);

CREATE TEMP TABLE quarantine_merged AS
SELECT quarantine_id, raw_json, reason, raw_sha256,
       min(first_seen_at) OVER record AS first_seen_at, sum(seen_count) OVER record AS seen_count,
       row_number() OVER (PARTITION BY merchant_id, resource, raw_sha256
                          ORDER BY last_seen_at DESC, quarantine_id DESC) AS newest
FROM quarantine_redacted
WINDOW record AS (PARTITION BY merchant_id, resource, raw_sha256);

DELETE FROM quarantine
WHERE quarantine_id IN (SELECT quarantine_id FROM quarantine_merged WHERE newest > 1);

UPDATE quarantine
SET raw_json = m.raw_json, reason = m.reason, raw_sha256 = m.raw_sha256,
    first_seen_at = m.first_seen_at, seen_count = m.seen_count
FROM quarantine_merged m
WHERE m.quarantine_id = quarantine.quarantine_id
  AND (m.raw_json IS NOT quarantine.raw_json OR m.reason IS NOT quarantine.reason
    OR m.seen_count <> quarantine.seen_count);

DROP TABLE temp.quarantine_redacted;
DROP TABLE temp.quarantine_merged;

-- The merchant name alone: no trigger follows it, and `updated_at` stays, since nothing was
-- observed. Only names with a digit can hold a card number.
UPDATE transactions
SET merchant_name = cardsync_redact_card_numbers(merchant_name)
WHERE merchant_name GLOB '*[0-9]*'
  AND cardsync_redact_card_numbers(merchant_name) <> merchant_name;
