"""Cards and the committed CSPRNG multi-deck shoe (pure: stdlib + msgspec only)."""
