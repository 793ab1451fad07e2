"""Metrics and logs, at the bottom of the shell: every floor may use them, they use none."""
