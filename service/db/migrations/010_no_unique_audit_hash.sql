-- The audit log's hash needs no UNIQUE index: a record is found by (table_id, seq), its primary key, and the chain
-- itself (each hash covers the one before, verified by `reddog audit-verify` and every proof) is what makes a record
-- unforgeable. A unique B-tree on random 32-byte hashes cost every append a lookup and an insert on a random leaf
-- page, one per record (five or more a round), and grew as large as the log.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_hash_key;
