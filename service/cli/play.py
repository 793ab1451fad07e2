"""`reddog play`: reuse (or open) a table, play one round with the optimal raise strategy, print it."""

from __future__ import annotations

import json
from typing import Any

from paytables.red_dog import loader
from paytables.red_dog.analysis import rtp
from service.cli.client import Client, ClientError

DEMO_PAYTABLE = "standard/v1"
DEMO_TABLE = {"name": "demo table", "paytable": DEMO_PAYTABLE, "currency": "EUR", "min_ante": 100, "max_ante": 10000}
DEMO_ANTE = 500


def play(url: str, operator: str, secret: str, table_id: str | None) -> int:
    client = Client(url, operator, secret)
    try:
        table_id = table_id or _table_to_use(client)
        rnd = client.request(
            "POST", f"/v1/tables/{table_id}/rounds", {"bets": [{"player_id": "alice", "ante": DEMO_ANTE}]}
        )
        _show("dealt", rnd)
        if rnd["status"] == "raise_window":
            rnd = _decide(client, rnd)
            _show("settled", rnd)
    except (ClientError, OSError) as exc:
        print(f"reddog play: {exc}")
        return 1
    print(json.dumps(rnd, indent=2))
    return 0


def _table_to_use(client: Client) -> str:
    """The newest open live standard/v1 table that takes the demo ante and plays rounds side by side; else a new one
    (so running `reddog play` again does not leave a trail of tables)."""
    for table in client.request("GET", "/v1/tables")["items"]:
        if _fits(table):
            print(f"reusing table {table['table_id']} ({table['paytable']}, {table['decks']} decks)")
            return str(table["table_id"])
    table = client.request("POST", "/v1/tables", DEMO_TABLE)
    edge = table["theoretical"]["house_edge"]
    print(f"opened table {table['table_id']} ({DEMO_PAYTABLE}, {table['decks']} decks, house edge {edge})")
    return str(table["table_id"])


def _fits(table: dict[str, Any]) -> bool:
    return bool(
        table["status"] == "open"
        and table["mode"] == "live"
        and table["paytable"] == DEMO_PAYTABLE
        and table["shoe_policy"] == "per_round"  # a cut-card table may have a round in progress
        and table["min_ante"] <= DEMO_ANTE <= table["max_ante"]
    )


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
    print(f"{what}: {cards}  outcome {rnd['outcome'] or '-'}  [{', '.join(_bet_line(b) for b in rnd['bets'])}]")


def _bet_line(bet: dict[str, Any]) -> str:
    """An open bet has no result or net yet: say so rather than print None."""
    if bet["result"] is None:
        return f"{bet['player_id']} open, ante {bet['ante']}"
    return f"{bet['player_id']} {bet['result']} net {bet['net']:+d}"
