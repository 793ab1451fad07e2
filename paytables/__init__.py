"""Released paytables, the Red Dog rules and exact RTP (pure: stdlib + msgspec only)."""
