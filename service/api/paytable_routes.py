"""Public paytable routes: the rules must be readable without wagering."""

from __future__ import annotations

from typing import Annotated

from litestar import Router, get
from litestar.params import FromPath, QueryParameter

from paytables.red_dog import loader
from service.api import wire
from service.api.openapi.openapi_docs import responses
from service.api.presenters import paytable_out
from service.errors import not_found


@get("/", responses=responses(200, wire.PaytableList, 400, 503), summary="List released paytables")
async def list_paytables() -> wire.PaytableList:
    return wire.PaytableList(items=[paytable_out(p) for p in loader.released().values()])


@get(
    "/{name:str}/{version:str}",
    responses=responses(200, wire.PaytableOut, 400, 404, 503),
    summary="One released paytable; with ?decks=N its exact theoretical figures",
)
async def get_paytable(
    name: FromPath[str], version: FromPath[str], decks: Annotated[int | None, QueryParameter(ge=1, le=8)] = None
) -> wire.PaytableOut:
    paytable = loader.released().get(f"{name}/{version}")
    if paytable is None:
        raise not_found("paytable")
    return paytable_out(paytable, decks)


router = Router(path="/v1/paytables", route_handlers=[list_paytables, get_paytable], tags=["paytables"])
