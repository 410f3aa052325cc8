-- 025: offering versions recorded before 018 get `previous_seen_at`, when the terms before them
-- were last seen, from the runs the mirror recorded (docs/reconciliation.md, the paragraph on
-- offering terms after the settings).
--
-- 018 left it NULL for them, and the fee and load checks then judged every order submitted
-- before such a version was first seen on the older terms alone: an issue charged the new fee
-- the day the terms changed, after the last read of the old ones, was an ISSUANCE_FEE_MISMATCH
-- for good, where a version recorded since is taken as on either terms (a test: 3.00 charged
-- two days after the last read of a 2.00 fee, reported with 2.00 expected). A cardsync before
-- 018 kept only the current version's last sighting, but every run read the offerings beside
-- the merchant balance, stamped on the same clock: the terms before a version were last seen by
-- the latest other run whose balance snapshot lies between their first sighting and the
-- version's, else at their first sighting. A run whose balance landed while its offerings read
-- failed counts as a sighting it was not (the window of either terms narrows, towards what was
-- reported before); one whose offerings landed while its balance was quarantined is missed (the
-- window widens to the run before).
UPDATE offering_versions AS v
SET previous_seen_at = coalesce(
  (SELECT max(b.observed_at)
   FROM offering_versions p
   JOIN merchant_balances b ON b.merchant_id = v.merchant_id AND b.run_id <> v.run_id
     AND b.observed_at >= p.observed_at AND b.observed_at < v.observed_at
   WHERE p.id = v.id AND p.version = v.version - 1),
  (SELECT p.observed_at FROM offering_versions p WHERE p.id = v.id AND p.version = v.version - 1))
WHERE v.version > 1 AND v.previous_seen_at IS NULL;
