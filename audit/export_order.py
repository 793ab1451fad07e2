"""The order of an export's chains, which `verify` checks: one section per chain, the chains in `table_id` order.

A section begins with the chain's `table` line, and every `checkpoint`, `hash` and `record` line after it is of that
chain until the next `table` line. The API's pages of one chain, concatenated, repeat its `table` line at each page:
a `table` line of the chain whose section it is continues that section. Lines from before any `table` line (a chain
known only by its links) have no section to be out of.
"""

from __future__ import annotations

from audit.chain_check import Fault, FaultKind


class ExportOrder:
    """Told each section's start and each line's chain; `faults` holds every line out of the export's order."""

    __slots__ = ("current", "faults", "finished")

    def __init__(self) -> None:
        self.current: str | None = None  # the chain whose section is being read
        self.finished: set[str] = set()  # chains whose section is over
        self.faults: list[Fault] = []

    def head(self, table_id: str) -> None:
        """A `table` line: the section of its chain begins (or, the same chain's, goes on)."""
        current = self.current
        if table_id == current:
            return
        if table_id in self.finished:
            self._fault(table_id, None, f"a second section of table {table_id}: an export lists each chain once")
        elif current is not None and table_id < current:
            self._fault(table_id, None, f"table {table_id} comes after table {current}: chains are in table_id order")
        if current is not None:
            self.finished.add(current)
        self.current = table_id

    def line(self, table_id: str, seq: int | None) -> None:
        """A line of a chain (a record, hash or checkpoint line): it must be in that chain's section."""
        if self.current is not None and table_id != self.current:
            self._fault(table_id, seq, f"a line of table {table_id} in the section of table {self.current}")

    def _fault(self, table_id: str, seq: int | None, detail: str) -> None:
        self.faults.append(Fault(kind=FaultKind.REORDERED, table_id=table_id, seq=seq, detail=detail))
