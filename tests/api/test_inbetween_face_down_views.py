"""Issue 26's acceptance for face-down cards: no route the app serves carries a card dealt face down and not shown,
except the one seat holding it, in its own view. The routes are read from the built app, not listed by hand: every
GET route is walked as every seat, as the operator (each seat's `?seat=` view and the public one) and as a spectator,
and every POST route whose reply is a game or a table is made in the scene and its reply checked; a route added
later is walked as it is served. The face-down cards are read from the game's row and its secret pack after each
step, so what counts as hidden is what the database says, never what the presenters show.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import uuid
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import asyncpg
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from paytables.inbetween.inbetween_state import Game
from shoe.shoe import Shoe, decode_shoe
from tests.api.friends_helpers import Phone, create, join
from tests.api.inbetween_helpers import GAMES, play
from tests.api.route_inputs import cases, served_routes
from tests.support.client import Signed

DOWN = "inbetween/pagat-down/v1"
GAME_SCHEMAS = ("GameOut", "FriendsTableOut", "FriendsJoinedOut")
SEEN_TYPES = ("application/json", "application/x-ndjson", "application/problem+json", "text/event-stream")
# pages, styles, scripts and the schema: static files, the same for every game
NOT_GAMES = ("text/html", "text/css", "text/javascript", "application/javascript", "image/", "font/", "text/plain",
             "application/vnd.oai.openapi", "application/yaml", "text/yaml")  # fmt: skip
_decode_game = msgspec.json.Decoder(Game).decode


class Hidden(msgspec.Struct, frozen=True, kw_only=True):
    """The cards of a game dealt face down and not shown, and the seat holding the ones in play (None: none)."""

    cards: frozenset[str]
    holder: int | None
    held: frozenset[str]


async def hidden(db: asyncpg.Connection, game_id: str) -> Hidden:
    row = await db.fetchrow("SELECT state, shoe FROM inbetween_games WHERE game_id = $1", UUID(game_id))
    assert row is not None
    game, shoe = _decode_game(row["state"]), decode_shoe(bytes(row["shoe"]))
    return hidden_in(game, shoe)


def hidden_in(game: Game, shoe: Shoe) -> Hidden:
    turn = game.turn
    held = frozenset(shoe.card_at(p) for p in turn.down) if turn is not None and turn.hidden else frozenset()
    folded = frozenset(shoe.card_at(p) for _, p in game.folded)
    holder = turn.seat if held and turn is not None else None
    return Hidden(cards=held | folded, holder=holder, held=held)


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, and in the JSON a string holds (a record's body)."""
    if isinstance(value, str):
        yield value
        if value.startswith(("{", "[")):
            with contextlib.suppress(ValueError):
                yield from strings(json.loads(value))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def documents(text: str) -> Iterator[Any]:
    """The JSON documents a body holds: the body, or each line of NDJSON or of an event stream."""
    for line in text.splitlines() if text else []:
        if line.strip():
            with contextlib.suppress(ValueError):
                yield json.loads(line.removeprefix("data: "))


def carried_in(doc: Any, cards: frozenset[str]) -> set[str]:
    """The cards among `cards` that a document names: a string that is the card, or a pack's order holding it."""
    found: set[str] = set()
    for s in strings(doc):
        found |= {s} & cards
        if re.fullmatch(r"(?:[2-9TJQKA][CDHS])+", s) and len(s) > 2:
            found |= {s[i : i + 2] for i in range(0, len(s), 2)} & cards
    return found


AUDIT_LINES = ("record", "table", "checkpoint", "hash")


def chain_of(doc: Any) -> str | None:
    """The chain an audit line belongs to (a game's chain is named by the game's id), None for any other document."""
    if isinstance(doc, dict) and doc.get("type") in AUDIT_LINES and isinstance(doc.get("table_id"), str):
        return str(doc["table_id"])
    return None


class Leaks:
    """Checks each reply against what is hidden in both games now; what each viewer may see is its own held cards."""

    def __init__(self, db: asyncpg.Connection) -> None:
        self.db = db
        self.games: dict[str, str] = {}  # name -> game id
        self.checked: set[str] = set()  # route keys whose replies were checked

    async def check(self, key: str, text: str, seat: int | None) -> None:
        """A reply about one game is checked against that game's hidden cards (the same card may be face up in the
        other game); a reply about neither against both."""
        self.checked.add(key)
        about = "friends" if "/v1/friends/" in key else "operator" if "/v1/inbetween/games" in key else None
        docs = list(documents(text))
        for name, game_id in self.games.items():
            if about not in (name, None):
                continue
            secret = await hidden(self.db, game_id)
            allowed = secret.held if seat is not None and seat == secret.holder else frozenset()
            # an audit line of another chain (a Red Dog table, the other game) names cards of its own pack, which may
            # be this game's hidden ones by chance: a line is checked against the game whose chain it is in
            ours = [d for d in docs if chain_of(d) in (None, game_id)]
            leaked = set().union(*(carried_in(d, secret.cards - allowed) for d in ours))
            assert not leaked, f"{key} as seat {seat} carries {sorted(leaked)} of {name}'s hidden cards"


def game_routes(doc: dict[str, Any]) -> set[str]:
    """The POST routes whose success reply is a game or a table, read from the app's OpenAPI document."""
    found = set()
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            replies = [r for status, r in operation.get("responses", {}).items() if status.startswith("2")]
            if method == "post" and any(ref in json.dumps(replies) for ref in GAME_SCHEMAS):
                found.add(f"POST {path}")
    return found


@pytest.fixture
def forced() -> list[str]:
    # "2S" is place 0 of the canonical deck: 0 mod 3, seat 0 (a) deals and b plays first. b's posts 4C JD (b folds),
    # the computer's 6H 7S (side by side: it folds), a's 5D QC (held, unshown, when the routes are walked).
    return ["2S", "4C", "JD", "6H", "7S", "5D", "QC"]


async def operator_scene(api: Signed, leaks: Leaks, forced: list[str]) -> str:
    body = {"ruleset": DOWN, "ante": 10, "rounds": 5, "mode": "test", "forced_cards": forced,
            "seats": [{"player_id": "a"}, {"player_id": "b"}, {"computer": True}]}  # fmt: skip
    created = await api.post(GAMES, body)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    leaks.games["operator"] = game_id
    await leaks.check("POST /v1/inbetween/games", created.text, None)
    assert created.json()["awaiting"] == "show"
    shown = await api.ok("GET", f"{GAMES}/{game_id}?seat=1")
    assert shown["own_cards"] == ["4C", "JD"]  # the seat sees its own face-down posts
    moved = await play(api, game_id, "b", "pass")  # folds unseen; the computer folds 6H 7S; a holds 5D QC
    await leaks.check("POST /v1/inbetween/games/{game_id}/actions", json.dumps(moved), None)
    assert (moved["to_act"], moved["awaiting"]) == ("a", "show")
    assert (await hidden(leaks.db, game_id)).cards == frozenset(forced[1:])
    return str(game_id)


async def friends_scene(http: AsyncTestClient[Litestar], leaks: Leaks) -> list[Phone]:
    host = await create(http, "Host", ruleset=DOWN, rounds=5, ante=10, seats=3)
    leaks.checked.add("POST /v1/friends/tables")  # its game is not started: nothing is dealt yet
    guest = await join(http, host.code, "Guest")
    leaks.checked.add("POST /v1/friends/tables/{code}/join")
    started = await host.post("/start", {"computers": []})
    assert started.status_code == 200, started.text
    leaks.games["friends"] = started.json()["game"]["game_id"]
    await leaks.check("POST /v1/friends/tables/{code}/start", started.text, 0)
    phones, folds = [host, guest], 0
    for _ in range(200):  # play until a person holds face-down posts after a person has folded some
        states = [await p.state() for p in phones]
        mover = next((i for i, s in enumerate(states) if s["you"]["to_act"]), None)
        assert mover is not None
        game = states[mover]["game"]
        assert len(game["own_cards"]) == 2  # the seat to act sees its own posts
        if folds and game["awaiting"] == "show":
            break
        move = {"action": "pass", "version": game["version"]}
        if game["awaiting"] == "show":
            folds += 1
        elif game["awaiting"] == "bet":
            move = {"action": "bet", "version": game["version"], "amount": game["turn"]["min_bet"]}
        reply = await phones[mover].post("/moves", move)
        assert reply.status_code == 200, reply.text
        await leaks.check("POST /v1/friends/tables/{code}/moves", reply.text, mover)
    # the hand-overs reply as the phone that made them sees the table: the host, then the guest taking its seat back
    to_computer = (host, "/seats/1/computer", "/seats/{seat}/computer")
    steps = [to_computer, (guest, "/back", "/back"), to_computer, (host, "/seats/1/person", "/seats/{seat}/person")]
    for phone, suffix, route in steps:
        handed = await phone.post(suffix, {"personality": "steady"} if suffix.endswith("computer") else {})
        assert handed.status_code == 200, handed.text
        await leaks.check(f"POST /v1/friends/tables/{{code}}{route}", handed.text, phone.seat)
    return phones


async def sse_first(http: AsyncTestClient[Litestar], path: str, headers: dict[str, str]) -> str:
    async with http.stream("GET", path, headers=headers) as response:
        lines: list[str] = []

        async def first() -> None:
            async for line in response.aiter_lines():
                lines.append(line)
                if line == "" and any(x.startswith("data:") for x in lines):
                    return

        if response.status_code == 200:
            await asyncio.wait_for(first(), 10)
        else:
            lines.append((await response.aread()).decode())
        return "\n".join(lines)


def filled(path: str, game_id: str, code: str, case_path: dict[str, str]) -> str:
    values = {"game_id": game_id, "code": code, **{k: v for k, v in case_path.items() if not v.startswith("{")}}
    out = path
    for name, kind in re.findall(r"\{(\w+):(\w+)\}", path):
        value = values.get(name) or (str(uuid.uuid4()) if kind == "uuid" else "1" if kind == "int" else "x")
        out = out.replace(f"{{{name}:{kind}}}", value)
    return out


async def test_no_route_shows_a_face_down_card_to_anyone_but_the_seat_holding_it(
    http: AsyncTestClient[Litestar], api: Signed, app: Litestar, db: asyncpg.Connection, forced: list[str]
) -> None:
    leaks = Leaks(db)
    game_id = await operator_scene(api, leaks, forced)
    phones = await friends_scene(http, leaks)
    code = phones[0].code
    viewers: list[tuple[int | None, dict[str, str]]] = [(None, {})]
    viewers += [(p.seat, p.headers()) for p in phones]
    known = cases()
    for route in (r for r in served_routes(app) if r.method == "GET"):
        case = known.get(route.key)
        path = filled(route.path, game_id, code, {} if case is None else case.path)
        query = {k: v for k, v in ({} if case is None else case.query).items() if not v.startswith("{")}
        query.pop("seat", None)
        queries = [query] + ([{**query, "seat": str(s)} for s in range(3)] if "seat" in route.query else [])
        for asked in queries:
            target = path + ("?" + "&".join(f"{k}={v}" for k, v in asked.items()) if asked else "")
            seat_asked = int(asked["seat"]) if "seat" in asked else None
            signed = await api.get(target)
            await check_reply(leaks, route.key, signed, seat_asked)
            for seat, headers in viewers:
                if route.key.endswith("/events"):
                    text = await sse_first(http, target, headers)
                    await leaks.check(route.key, text, seat)
                    continue
                await check_reply(leaks, route.key, await http.get(target, headers=headers), seat)
    left = await phones[1].post("/leave")
    assert left.status_code == 200, left.text
    await leaks.check("POST /v1/friends/tables/{code}/leave", left.text, phones[1].seat)
    doc = (await http.get("/schema/openapi.json")).json()
    posts = {key.replace(":str", "").replace(":uuid", "").replace(":int", "") for key in leaks.checked}
    missing = game_routes(doc) - posts
    assert not missing, f"routes that reply with a game, never checked: {sorted(missing)}"
    held = await hidden(db, game_id)
    assert (held.holder, held.held) == (0, frozenset({"5D", "QC"}))
    mine = await api.ok("GET", f"{GAMES}/{game_id}?seat=0")
    assert sorted(mine["own_cards"]) == ["5D", "QC"]
    assert mine["odds"] is not None  # the odds of showing and betting, from what seat 0 may see


async def check_reply(leaks: Leaks, key: str, response: Any, seat: int | None) -> None:
    kind = response.headers.get("content-type", "")
    if any(kind.startswith(t) for t in SEEN_TYPES) or not response.content:
        await leaks.check(key, response.text, seat)
    else:
        assert any(kind.startswith(t) for t in NOT_GAMES), f"{key} answers {kind}: the walk cannot read it"
