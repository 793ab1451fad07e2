"""The append-only audit trail: canonical record bytes, the hash chain and its verification (pure)."""
