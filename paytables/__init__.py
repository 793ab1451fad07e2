"""The pure game core, one wing per game (red_dog/, inbetween/) on what they share; stdlib and msgspec only."""
