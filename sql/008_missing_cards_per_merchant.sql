-- 008: each merchant's answer about a missing card is kept apart.
--
-- missing_cards was keyed by card_id alone. When two merchants asked GET /cards/info about the
-- same card (a transaction of one naming a card of the other), the later answer replaced the
-- earlier one under the earlier merchant's id: the card's owner was given the other's 404 (its
-- own card gone, its transactions false ORPHAN_TRANSACTIONs) and the other merchant no answer.
-- The table is keyed by card and merchant now; its rows are kept as they are.
CREATE TABLE missing_cards_by_merchant (
  card_id     TEXT NOT NULL,
  merchant_id TEXT NOT NULL,
  answer      TEXT NOT NULL,  -- 'not_found' (an orphan) or 'found' (listed late)
  checked_at  TEXT NOT NULL,
  run_id      TEXT NOT NULL,
  PRIMARY KEY (card_id, merchant_id)
);
INSERT INTO missing_cards_by_merchant (card_id, merchant_id, answer, checked_at, run_id)
SELECT card_id, merchant_id, answer, checked_at, run_id FROM missing_cards;
DROP TABLE missing_cards;
ALTER TABLE missing_cards_by_merchant RENAME TO missing_cards;
