-- A round can be rolled back (every transaction reversed, nothing deleted); reconciliation lists rounds by the time
-- they settled, per operator.
ALTER TABLE rounds DROP CONSTRAINT rounds_status_check;
ALTER TABLE rounds ADD CONSTRAINT rounds_status_check
    CHECK (status IN ('raise_window', 'settled', 'void', 'rolled_back'));
CREATE INDEX rounds_by_operator_settled ON rounds (operator_id, settled_at) WHERE settled_at IS NOT NULL;
