"""The server's own `reddog` subcommands; filled in by the round API."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    """Add the server's subcommands to the `reddog` parser."""
    del sub


__all__ = ["argparse", "register"]
