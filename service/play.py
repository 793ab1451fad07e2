"""`reddog play`: open a table if needed, play one round with the optimal raise strategy, print it."""

from __future__ import annotations

import json
from typing import Any

from paytables import loader, rtp
from service.client import Client, ClientError


def play(url: str, operator: str, secret: str, table_id: str | None) -> int:
    client = Client(url, operator, secret)
    try:
        if table_id is None:
            table = client.request(
                "POST",
                "/v1/tables",
                {
                    "name": "demo table",
                    "paytable": "standard/v1",
                    "currency": "EUR",
                    "min_ante": 100,
                    "max_ante": 10000,
                },
            )
            table_id = table["table_id"]
            print(f"opened table {table_id} (standard/v1, 6 decks, house edge {table['theoretical']['house_edge']})")
        rnd = client.request("POST", f"/v1/tables/{table_id}/rounds", {"bets": [{"player_id": "alice", "ante": 500}]})
        _show("dealt", rnd)
        if rnd["status"] == "raise_window":
            rnd = _decide(client, rnd)
            _show("settled", rnd)
    except (ClientError, OSError) as exc:
        print(f"reddog play: {exc}")
        return 1
    print(json.dumps(rnd, indent=2))
    return 0


def _decide(client: Client, rnd: dict[str, Any]) -> Any:
    raise_spreads = set(rtp.compute(loader.get(rnd["paytable"]), rnd["decks"]).raise_spreads)
    bet = rnd["bets"][0]
    action = "raise" if rnd["spread"] in raise_spreads else "call"
    print(f"spread {rnd['spread']} pays {rnd['payout_odds']} to 1: {action}")
    body: dict[str, Any] = {"bet_id": bet["bet_id"], "action": action}
    if action == "raise":
        body["amount"] = bet["ante"]
    return client.request("POST", f"/v1/rounds/{rnd['round_id']}/decisions", body)


def _show(what: str, rnd: dict[str, Any]) -> None:
    cards = " ".join(c["card"] for c in rnd["cards"])
    bets = ", ".join(f"{b['player_id']} {b['result'] or 'open'} net {b['net']}" for b in rnd["bets"])
    print(f"{what}: {cards}  outcome {rnd['outcome']}  [{bets}]")
