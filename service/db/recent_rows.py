"""The rows this worker's last writes left behind, for the next request on them to start from instead of a read.

A round costs two requests, and each began by reading back what the one before it had just written: the open read
the table row its last round left, the decision read the round its open wrote. An unlocked attempt (`Optimistic`)
may start from what this worker remembers instead, because a table's audit head versions everything read from its
row and its rounds' rows (migration 011: every change of either appends to the table's chain): its one write checks
the head it started from, and the size of the table's latest checkpoint (signed beside the chain by the background
pass or a proof request, which moves no head), and fails whole when either moved. The request then runs again
`Locked`, from a read, as it does when another replica got there first. Nothing here is needed for correctness or
shared between workers: a request on another worker or replica reads, as before.

An entry is taken out when a request starts from it and put back by that request's commit, so an attempt that fails
leaves nothing stale behind; the least recently kept go first past `most` (a round with its shoe is about 5 KB).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar
from uuid import UUID

from service.observability import metrics

T = TypeVar("T")


class RecentRows:
    def __init__(self, most: int = 4096) -> None:
        self._rows: OrderedDict[tuple[str, UUID], object] = OrderedDict()
        self._most = most

    def take(self, operator_id: str, row_id: UUID, kind: type[T]) -> T | None:
        """The operator's row as this worker last wrote it, removed; None when not kept (or not of `kind`)."""
        row = self._rows.pop((operator_id, row_id), None)
        if not isinstance(row, kind):
            return None
        metrics.REMEMBERED_STARTS.inc()  # whether its write then holds or not (a conflict counts as one as well)
        return row

    def peek(self, operator_id: str, row_id: UUID, kind: type[T]) -> T | None:
        row = self._rows.get((operator_id, row_id))
        return row if isinstance(row, kind) else None

    def keep(self, operator_id: str, row_id: UUID, row: object) -> None:
        """Remember the row as a commit of this worker has just left it."""
        key = (operator_id, row_id)
        self._rows[key] = row
        self._rows.move_to_end(key)
        while len(self._rows) > self._most:
            self._rows.popitem(last=False)

    def forget(self, operator_id: str, row_id: UUID) -> None:
        self._rows.pop((operator_id, row_id), None)

    def __len__(self) -> int:
        return len(self._rows)
