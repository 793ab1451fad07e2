"""Red Dog: paytables and their loader, the rules, the round state machine, its events, the shoe's lifecycle."""
