-- 013: report folders published but not yet recorded.
--
-- A reconciliation renames its report folder into place inside the transaction that records its
-- findings (src/runner/reconcile-mirror.ts), so a report that cannot be written leaves the store
-- as it was. A crash after that rename and before the commit left a complete folder,
-- `<reports dir>/<run id>/`, of a run the mirror never recorded: beside the next run's folder it
-- showed the same findings `new` a second time with another first_seen_at, and the same ones
-- resolved twice. The folder is now announced here, in a transaction of its own committed before
-- the rename; the recording transaction deletes the row. A row still here names a folder whose
-- findings were never recorded: the next reconciliation removes that folder, then the row, so
-- the night looks as if the killed run never happened.
CREATE TABLE pending_reports (
  run_id       TEXT PRIMARY KEY,
  dir          TEXT NOT NULL,   -- the folder's absolute path, as the run would publish it
  announced_at TEXT NOT NULL
);
