"""What refusing repeated JSON keys costs a request: the check beside msgspec's typed decode of the same body."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable

import msgspec

from service.api import wire
from service.api.json_keys import repeated_key

TABLE = {"name": "main", "paytable": "standard/v1", "currency": "EUR", "min_ante": 100, "max_ante": 10000}
ROUND = {"bets": [{"player_id": f"player-{i}", "ante": 500} for i in range(7)], "forced_cards": ["4S", "TH", "7D"]}


def best(action: Callable[[], object], runs: int) -> float:
    """The fastest of `runs` timings of 1,000 calls, in seconds per call."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(1000):
            action()
        times.append((time.perf_counter() - start) / 1000)
    return min(times)


def main() -> None:
    bodies: list[tuple[str, bytes, type[msgspec.Struct]]] = [
        ("a table (104 bytes)", json.dumps(TABLE).encode(), wire.CreateTable),
        ("a round of 7 bets", json.dumps(ROUND).encode(), wire.CreateRound),
        ("a table padded to 64 KiB", json.dumps(TABLE).encode()[:-1] + b" " * 65_000 + b"}", wire.CreateTable),
        ("a void reason of 500 escapes", json.dumps({"reason": "\u00e9" * 500}).encode(), wire.VoidIn),
    ]
    for name, raw, model in bodies:
        decoder: msgspec.json.Decoder[msgspec.Struct] = msgspec.json.Decoder(model, strict=True)
        decode = best(functools.partial(decoder.decode, raw), 7)
        scan = best(functools.partial(repeated_key, raw), 7)
        print(f"  {name:<30} {len(raw):>6} B  decode {decode * 1e6:7.2f} us  repeat check {scan * 1e6:7.2f} us")


if __name__ == "__main__":
    main()
