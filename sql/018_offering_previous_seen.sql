-- 018: when the terms before each offering version were last seen (docs/reconciliation.md,
-- the paragraph on offering terms after the settings).
--
-- A version of an offering's terms is first seen by one sync; the version before it was last
-- seen by an earlier one. The upstream changed the terms at some moment in between, which the
-- mirror cannot know: an order submitted in between may have been charged on either version,
-- and the fee and load checks accept both. NULL for version 1, and for versions recorded before
-- this migration (their orders are judged on the older version alone, as before).
ALTER TABLE offering_versions ADD COLUMN previous_seen_at TEXT;
