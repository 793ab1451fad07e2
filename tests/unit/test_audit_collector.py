"""Reading an export pauses the cyclic garbage collector and gives it back as it found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from audit.collector import collector_paused
from audit.replay import Replayer


def test_the_collector_is_off_inside_and_back_on_after_even_when_the_block_raises() -> None:
    inside: list[bool] = []

    def fail() -> None:
        with collector_paused():
            inside.append(gc.isenabled())
            raise RuntimeError

    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        fail()
    assert inside == [False]
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_replay_feeds_with_the_collector_paused() -> None:
    seen: list[bool] = []

    def lines() -> list[bytes]:
        seen.append(gc.isenabled())
        return [b'{"type":"export"}\n']

    Replayer().feed_bytes(lines())
    assert seen == [True]  # the list was made before the feed

    def lazy() -> Iterator[bytes]:
        seen.append(gc.isenabled())
        yield b'{"type":"export"}\n'

    Replayer().feed_bytes(lazy())
    assert seen == [True, False]
    assert gc.isenabled()
