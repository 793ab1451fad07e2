"""The audit anchors over HTTP: the public key, the latest checkpoint, a round's inclusion proof and a consistency
proof, each checked by the pure checker an auditor runs, and each refused when one byte is changed."""

from __future__ import annotations

import base64
from typing import Any
from uuid import UUID

import asyncpg
import msgspec
import pytest

from audit.proof_check import ConsistencyProof, RoundProof, check_consistency_proof, check_round_proof
from audit.signed_note import generate_key, parse_verifier
from audit.system_events import SYSTEM_CHAIN_ID
from tests.api.helpers import open_round, problem
from tests.conftest import AUDIT_KEY
from tests.support.client import Signed

VERIFIER = parse_verifier(AUDIT_KEY.verifier_key)


async def played_round(api: Signed, cards: list[str] | None = None) -> Any:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 20)], cards or ["4S", "TH", "7D"])
    return await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close", {"requested_by": "pit boss 7"})


def round_proof(body: bytes) -> RoundProof:
    return msgspec.json.decode(body, type=RoundProof)


async def test_the_public_key_is_served_without_a_signature_and_is_the_servers_key(api: Signed) -> None:
    response = await api.client.get("/v1/audit/public-key")
    assert response.status_code == 200, response.text
    key = response.json()
    assert key["verifier_key"] == AUDIT_KEY.verifier_key
    assert (key["name"], key["key_id"], key["algorithm"]) == ("reddog.test/audit", f"{VERIFIER.key_id:08x}", "Ed25519")
    assert base64.b64decode(key["public_key"]) == VERIFIER.public_key
    assert key["origin_prefix"] == "reddog.test/audit/table/"


async def test_a_rounds_proof_holds_every_record_of_the_round_each_proved_in_a_signed_checkpoint(
    api: Signed, db: asyncpg.Connection
) -> None:
    rnd = await played_round(api)
    response = await api.get(f"/v1/rounds/{rnd['round_id']}/proof")
    assert response.status_code == 200, response.text
    proof = round_proof(response.content)
    assert check_round_proof(proof, VERIFIER) == []
    rows = await db.fetch("SELECT seq, body FROM audit_log WHERE round_id = $1 ORDER BY seq", UUID(rnd["round_id"]))
    # shuffled, opened, 3 cards, spread, 2 dealer calls, 2 bets settled, settled, revealed: 12 records
    assert [(r.seq, r.body) for r in proof.records] == [(r["seq"], r["body"]) for r in rows]
    assert len(rows) == 12
    # Nothing covered the round when it was asked for, so the proof signed the table's head then.
    assert proof.tree_size == await db.fetchval(
        "SELECT audit_seq FROM game_tables WHERE table_id = $1", UUID(rnd["table_id"])
    )


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


async def test_a_proof_with_one_changed_byte_a_forged_checkpoint_or_another_key_is_refused(api: Signed) -> None:
    rnd = await played_round(api)
    proof = round_proof((await api.get(f"/v1/rounds/{rnd['round_id']}/proof")).content)
    first, *rest = proof.records
    changed_body = msgspec.structs.replace(
        proof, records=(msgspec.structs.replace(first, body=_flip(first.body, 30)), *rest)
    )
    assert any("record_hash" in p for p in check_round_proof(changed_body, VERIFIER))
    path = first.hashes
    changed_path = msgspec.structs.replace(first, hashes=(_flip(path[0], 0), *path[1:]))
    assert any(
        "not included" in p
        for p in check_round_proof(msgspec.structs.replace(proof, records=(changed_path, *rest)), VERIFIER)
    )
    text, _, signature = proof.checkpoint.rpartition(" ")
    forged = f"{text} {base64.b64encode(_flip(base64.b64decode(signature), 10)).decode()}\n"
    assert check_round_proof(msgspec.structs.replace(proof, checkpoint=forged), VERIFIER) == [
        f"checkpoint: the signature by reddog.test/audit+{VERIFIER.key_id:08x} does not verify"
    ]
    stranger = parse_verifier(generate_key("reddog.test/audit", bytes(32)).verifier_key)
    assert check_round_proof(proof, stranger)[0].startswith("checkpoint: no signature by")
    other_round = msgspec.structs.replace(proof, round_id=str(UUID(int=1)))
    assert all("round" in p for p in check_round_proof(other_round, VERIFIER))


async def test_another_operator_cannot_see_a_rounds_proof_or_its_tables_checkpoint_but_an_auditor_can(
    api: Signed, other_api: Signed, auditor_api: Signed
) -> None:
    rnd = await played_round(api)
    proof_path = f"/v1/rounds/{rnd['round_id']}/proof"
    latest_path = f"/v1/audit/checkpoints/latest?table_id={rnd['table_id']}"
    problem(await other_api.get(proof_path), 404, "NOT_FOUND")
    assert check_round_proof(round_proof((await auditor_api.get(proof_path)).content), VERIFIER) == []
    problem(await other_api.get(latest_path), 404, "NOT_FOUND")
    latest = await auditor_api.ok("GET", latest_path)
    assert latest == await api.ok("GET", latest_path)
    assert (latest["table_id"], latest["tree_size"]) == (rnd["table_id"], round_proof_size(latest["note"]))
    assert latest["root"] == latest["note"].split("\n")[2]
    # The system chain is the auditors' alone.
    problem(await api.get(f"/v1/audit/checkpoints/latest?table_id={SYSTEM_CHAIN_ID}"), 404, "NOT_FOUND")


def round_proof_size(note: str) -> int:
    return int(note.split("\n")[1])


async def test_a_consistency_proof_shows_the_latest_checkpoint_extends_one_kept_earlier(api: Signed) -> None:
    rnd = await played_round(api)
    await api.ok("GET", f"/v1/rounds/{rnd['round_id']}/proof")  # signs the table's head now
    latest_path = f"/v1/audit/checkpoints/latest?table_id={rnd['table_id']}"
    kept = await api.ok("GET", latest_path)
    later = await open_round(api, rnd["table_id"], [("p1", 10)], ["5S", "6H"])
    await api.ok("GET", f"/v1/rounds/{later['round_id']}/proof")
    new = await api.ok("GET", latest_path)
    assert new["tree_size"] > kept["tree_size"]
    base = f"/v1/audit/consistency?table_id={rnd['table_id']}"
    response = await api.get(f"{base}&from={kept['tree_size']}")
    assert response.status_code == 200, response.text
    proof = msgspec.json.decode(response.content, type=ConsistencyProof)
    assert (proof.from_size, proof.to_size, proof.checkpoint) == (kept["tree_size"], new["tree_size"], new["note"])
    assert check_consistency_proof(proof, kept["note"], VERIFIER) == []
    # The same proof does not pass for another kept size, and an empty proof for equal sizes needs equal roots.
    wrong = msgspec.structs.replace(proof, from_size=proof.from_size - 1)
    assert check_consistency_proof(wrong, kept["note"], VERIFIER) != []
    same = msgspec.json.decode(
        (await api.get(f"{base}&from={kept['tree_size']}&to={kept['tree_size']}")).content, type=ConsistencyProof
    )
    assert (same.hashes, check_consistency_proof(same, kept["note"], VERIFIER)) == ((), [])


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("&from=999999", 422, "VALIDATION_ERROR"),
        ("&from=1&to=999999", 404, "NOT_FOUND"),
        ("&from=-1", 400, "VALIDATION_ERROR"),
    ],
)
async def test_a_consistency_proof_past_the_checkpoint_or_to_no_checkpoint_is_refused(
    api: Signed, query: str, status: int, code: str
) -> None:
    rnd = await played_round(api)
    await api.ok("GET", f"/v1/rounds/{rnd['round_id']}/proof")
    problem(await api.get(f"/v1/audit/consistency?table_id={rnd['table_id']}{query}"), status, code)
