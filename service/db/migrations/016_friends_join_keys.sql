-- A join is idempotent by a key the phone makes up once per join it means (a retry after a dropped reply sends it
-- again): the same key at the same table is the same seat with the same token. Only the key's sha256 is kept; the
-- token is an HMAC of the key under the seat's random salt, so neither the key alone (which the page's script holds)
-- nor these rows alone yield the token. `join_bearer`: whether the token was handed out in the body, so a retry
-- cannot turn a cookie's join into one that shows the token to a script.
ALTER TABLE friends_seats
    ADD COLUMN join_key_hash bytea,
    ADD COLUMN join_salt     bytea,
    ADD COLUMN join_bearer   boolean;
CREATE UNIQUE INDEX friends_seats_join_key ON friends_seats (table_id, join_key_hash) WHERE join_key_hash IS NOT NULL;
