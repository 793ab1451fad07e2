-- The table's paytable column takes the name the domain and the audit records use; the audit head gains the time
-- of its last record, so recorded_at never goes backwards along a chain whatever the replicas' clocks do.
ALTER TABLE game_tables RENAME COLUMN paytable_id TO paytable;
ALTER TABLE game_tables ADD COLUMN audit_at timestamptz;
