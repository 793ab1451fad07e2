"""The one verifier of the audit log in the database, behind `reddog audit verify --db`: every chain, every stored
round and every stored In Between game against its records.

The chains are every Red Dog table's, every In Between game's and the system chain, each checked by the export
verifier (`audit/verify_export.py`) as it checks a file: seq, links, hashes, bodies, columns, times, the head and the
checkpoints. Each chain is read to its last stored record, not only to its head as an export is, so a record
appended behind the service's back is caught too. The tables' records are folded into rounds on the way, and every
stored round is reconciled with them (`round_reconcile.py`): the chain proves the records were not changed, the
reconciliation that the rounds the API shows still say what the records say. Each game's records are folded into
the game they describe, and every game row is reconciled with it the same way (`game_reconcile.py`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

import msgspec

from audit.export_format import CheckpointLine, Line
from audit.game_fold import GameFolder
from audit.replay import Replayer
from audit.system_events import SigningKeyRotated
from audit.verify_export import ExportVerifier, VerifyReport
from service.chains.audit_export import checkpoint_lines, head_of, line_of
from service.chains.game_reconcile import GamesReport, reconcile_stored_games
from service.chains.round_reconcile import RoundsReport, reconcile_stored_rounds
from service.db import Conn, system_sql
from service.db.audit_export_sql import ExportTable, select_export_tables, select_game_heads, stream_records

BATCH = 2000
LAST_SEQ = 2**63 - 1  # bigint's largest: every record of a chain, past its head too


class DatabaseReport(msgspec.Struct, frozen=True, kw_only=True):
    chains: VerifyReport  # every chain: the system's, each table's, each game's
    rounds: RoundsReport  # every stored round against its records
    games: GamesReport = msgspec.field(default_factory=lambda: GamesReport(checked=0, differences=[]))
    rotations: list[SigningKeyRotated] = msgspec.field(default_factory=list)  # the system chain's key history

    @property
    def ok(self) -> bool:
        return self.chains.ok and self.rounds.ok and self.games.ok


async def verify_database(conn: Conn, checker: ExportVerifier | None = None) -> DatabaseReport:
    """Every chain and every stored round; the caller holds one REPEATABLE READ transaction, so heads, records and
    rounds are of one moment. `checker` brings a verifier key and kept checkpoints, if any."""
    checker = checker or ExportVerifier()
    folder = Replayer(keep_states=True, rerun=False)  # only the states the records describe: replay re-runs them
    chains = await select_export_tables(conn, operator_id=None)  # the system chain, the tables and the games
    game_ids = {game.table_id for game in await select_game_heads(conn)}
    checkpoints = await checkpoint_lines(conn, chains)
    games = GameFolder()
    for chain in chains:  # in table_id order, as an export holds them
        async for batch in _chain_lines(conn, chain, checkpoints[chain.table_id]):
            checker.feed(batch)
            (games if chain.table_id in game_ids else folder).feed(batch)
    rounds = await reconcile_stored_rounds(conn, folder.recorded_rounds())
    stored_games = await reconcile_stored_games(conn, games.recorded_games())
    rotations = await system_sql.select_key_rotations(conn)
    return DatabaseReport(chains=checker.report(), rounds=rounds, games=stored_games, rotations=rotations)


async def _chain_lines(
    conn: Conn, chain: ExportTable, checkpoints: Iterable[CheckpointLine]
) -> AsyncIterator[list[Line]]:
    """One chain as export lines, in batches: its head, its checkpoints, then every record it holds."""
    batch: list[Line] = [head_of(chain), *checkpoints]
    async for record in stream_records(conn, chain.table_id, 0, LAST_SEQ):
        batch.append(line_of(chain.table_id, record))
        if len(batch) >= BATCH:
            yield batch
            batch = []
    yield batch
