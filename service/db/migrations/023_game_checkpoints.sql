-- In Between games' chains are checkpointed as the tables' are: nothing outside the database anchored a game's
-- history, so a database owner could rewrite one (re-chaining every record after the change and moving the row's
-- head) and no verifier could tell. A game's row now keeps its chain's Merkle tree head, extended by every append in
-- the statement that moves the head, so the background pass signs game chains too; the games already played get
-- theirs from their records (audit_compact_range, migration 004).
ALTER TABLE inbetween_games ADD COLUMN audit_tree bytea;
UPDATE inbetween_games SET audit_tree = audit_compact_range(game_id);
ALTER TABLE inbetween_games ALTER COLUMN audit_tree SET NOT NULL;
-- The background pass looks only at games still being played (a game is signed in the append that ends it): the
-- ended ones, which pile up for ever, are never scanned. ended_at changes once, so moves stay HOT updates.
CREATE INDEX inbetween_games_playing ON inbetween_games (game_id) WHERE ended_at IS NULL;
