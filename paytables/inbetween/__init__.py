"""In Between: rule sets, posts, state, events, actions, the tape, the game, odds, the computer player, simulation."""
