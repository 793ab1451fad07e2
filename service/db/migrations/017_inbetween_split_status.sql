-- Issue 26: a game whose player holds a pair that a rule set lets them split waits in `awaiting_split` (split the
-- pair into two hands, or keep it). The status check names every state the engine rests in, so it takes the new one;
-- every row already stored is in one of the old states and passes the new check unchanged.
ALTER TABLE inbetween_games DROP CONSTRAINT inbetween_games_status_check;
ALTER TABLE inbetween_games ADD CONSTRAINT inbetween_games_status_check
    CHECK (status IN ('awaiting_ace_call', 'awaiting_pair_call', 'awaiting_bet', 'awaiting_split',
                      'turn_over', 'round_over', 'game_over'));
