"""What the friends' tables' tests share: a phone (a client with its seat's token), and playing a game through."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

TABLES = "/v1/friends/tables"


@dataclass
class Phone:
    """One phone at a table: its seat and the bearer token that acts for it (None: a spectator)."""

    client: httpx.AsyncClient
    code: str
    seat: int | None
    token: str | None

    def headers(self) -> dict[str, str]:
        return {} if self.token is None else {"authorization": f"Bearer {self.token}"}

    async def get(self, suffix: str = "", **params: Any) -> httpx.Response:
        return await self.client.get(f"{TABLES}/{self.code}{suffix}", headers=self.headers(), params=params)

    async def post(self, suffix: str, body: Any = None) -> httpx.Response:
        return await self.client.post(f"{TABLES}/{self.code}{suffix}", json=body or {}, headers=self.headers())

    async def state(self, **params: Any) -> Any:
        response = await self.get(**params)
        assert response.status_code == 200, response.text
        return response.json()

    async def ok(self, suffix: str, body: Any = None) -> Any:
        response = await self.post(suffix, body)
        assert response.status_code < 300, response.text
        return response.json()


async def create(client: httpx.AsyncClient, name: str = "Host", **fields: Any) -> Phone:
    response = await client.post(TABLES, json={"name": name, "bearer": True, **fields})
    assert response.status_code == 201, response.text
    body = response.json()
    return Phone(client=client, code=body["table"]["code"], seat=body["seat"], token=body["token"])


async def join(client: httpx.AsyncClient, code: str, name: str) -> Phone:
    response = await client.post(f"{TABLES}/{code}/join", json={"name": name, "bearer": True})
    assert response.status_code == 201, response.text
    body = response.json()
    return Phone(client=client, code=code, seat=body["seat"], token=body["token"])


def quiet_move(state: Any) -> dict[str, Any]:
    """A move that keeps a game short and safe: an ace high, a pair higher (lower for aces) or kept rather than split,
    otherwise a pass."""
    game = state["game"]
    version = game["version"]
    if game["awaiting"] == "split":
        return {"action": "keep_pair", "version": version}
    if game["awaiting"] == "ace_call":
        return {"action": "call_ace", "version": version, "call": "high"}
    if game["awaiting"] == "pair_call":
        calls = [c["call"] for c in game["pair_call_odds"]]
        return {"action": "call_pair", "version": version, "call": calls[0]}
    return {"action": "pass", "version": version}


async def play_to_the_end(phones: list[Phone], most: int = 500) -> Any:
    """Each phone moves when its seat is to act, until the game is over; the last state."""
    for _ in range(most):
        states = [await p.state() for p in phones]
        if states[0]["status"] == "over":
            return states[0]
        mover = next(i for i, s in enumerate(states) if s["you"]["to_act"])
        await phones[mover].ok("/moves", quiet_move(states[mover]))
    raise AssertionError(f"the game did not end in {most} moves")
