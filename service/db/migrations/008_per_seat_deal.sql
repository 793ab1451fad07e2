-- Red Dog Poker: a table deals one set of cards to the whole round (shared) or each seat its own (per_seat).
ALTER TABLE game_tables ADD COLUMN deal text NOT NULL DEFAULT 'shared' CHECK (deal IN ('shared', 'per_seat'));
