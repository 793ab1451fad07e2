"""Red Dog mathematics: exact RTP, expectation, per-seat law, simulations, chi-square (not needed to pay a round)."""
