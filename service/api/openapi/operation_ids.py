"""Every operation's `operationId`, made in one place: its handler's name in camelCase (`rollback_round` is
`rollbackRound`), unless the handler names one itself (`operation_id="openRound"`, where the function's name is not
the word an integrator should see). Short and stable, since generated clients name their functions by it: a test
holds the ids to the committed list docs/operation-ids.txt, so a rename is seen, and breaks clients only on purpose."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from litestar.handlers import HTTPRouteHandler
    from litestar.types import Method
    from litestar.types.internal_types import PathParameterDefinition


def camel(name: str) -> str:
    """`hand_seat_to_computer` -> `handSeatToComputer`."""
    first, *rest = name.strip("_").split("_")
    return first + "".join(word[:1].upper() + word[1:] for word in rest)


def short_operation_id(
    route_handler: HTTPRouteHandler, http_method: Method, path_components: list[str | PathParameterDefinition]
) -> str:
    """Litestar's `operation_id_creator`: asked only for a handler that names no id of its own. The method and path
    stay out of the id (a handler serves one method here); Litestar refuses two operations with one id."""
    del http_method, path_components
    return camel(route_handler.handler_name)
