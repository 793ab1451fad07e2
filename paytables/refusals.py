"""Moves the rules refuse, each with a stable machine-readable `code` (the API's problem `code`)."""

from __future__ import annotations


class GameError(Exception):
    """A move the rules refuse; `code` is stable and machine-readable."""

    code = "GAME_ERROR"


class NotInRaiseWindow(GameError):
    code = "NOT_IN_RAISE_WINDOW"


class RaiseWindowClosed(GameError):
    code = "RAISE_WINDOW_CLOSED"


class AlreadyDecided(GameError):
    code = "ALREADY_DECIDED"


class UnknownBet(GameError):
    code = "NOT_FOUND"


class RaiseExceedsAnte(GameError):
    code = "RAISE_EXCEEDS_ANTE"


class RollbackGraceExpired(GameError):
    code = "ROLLBACK_GRACE_EXPIRED"
