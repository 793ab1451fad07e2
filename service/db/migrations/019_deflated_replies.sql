-- Issue 32: an idempotency key's stored reply, deflated. A round's reply is about 1.6 KB of JSON and every round
-- stores one or two (about 3 KB of heap and WAL a round, a sixth of all it writes); deflate primed with a preset
-- dictionary of replies' shape takes each to under a third (service/db/reply_dictionary.py).
-- The service writes the reply here and leaves `response` NULL; it reads either, so keys stored before this
-- migration still replay. A replica of an older release reads NULL and retries (a retryable 503 for that replay),
-- never another body.
ALTER TABLE idempotency_keys ADD COLUMN response_deflated bytea;
