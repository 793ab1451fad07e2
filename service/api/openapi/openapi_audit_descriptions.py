"""What the audit anchors (public key, checkpoints, proofs) and game recall say in the OpenAPI document: the fields
and operations `openapi_descriptions` gathers with the Red Dog ones (a test keeps them equal to the document)."""

# ruff: noqa: E501 - a description per line reads better than wrapped strings
from __future__ import annotations

UUID_ID = "a UUID (version 4), lowercase with hyphens"
TIME = "an RFC 3339 time in UTC, with `Z`"

PROPERTIES: dict[str, dict[str, str]] = {
    "PublicKeyOut": {
        "name": "the key's name: the first line of every checkpoint note starts with it, and a table's origin is `<name>/table/<table id>`",
        "algorithm": "`Ed25519`",
    },
    "CheckpointOut": {
        "table_id": f"the table whose log it anchors, {UUID_ID} (the nil UUID: the system chain)",
        "tree_size": "how many audit records the log held when signed: records 1..tree_size, in `seq` order",
        "created_at": f"when it was signed, {TIME}",
    },
    "RecordProofOut": {"seq": "the record's place in its chain, from 1"},
    "RoundProofOut": {
        "round_id": f"the round, {UUID_ID}",
        "table_id": f"its table, {UUID_ID}",
        "tree_size": "the size of the checkpoint every record is proved in",
        "records": "every audit record of the round, in `seq` order, each with its inclusion proof",
    },
    "ConsistencyProofOut": {
        "table_id": f"the table, {UUID_ID}",
        "from_size": "the size of the log the proof starts from (`from`)",
        "to_size": "the size of the checkpoint it ends at (`to`, or the latest)",
    },
    "MomentOut": {
        "at": f"when it happened, {TIME}",
        "kind": "the audit event's kind (`round_opened`, `card_dealt`, `decision`, `bet_settled`...)",
    },
    "PlayerRoundOut": {
        "currency": "the table's ISO 4217 currency: the amounts of the round are in its minor units",
        "timeline": "every moment the player saw, in order",
    },
    "PlayerRoundsOut": {
        "player_id": "the player, as asked",
        "items": "the operator's last rounds with a bet by this player, newest first",
    },
    "RecallLinkIn": {
        "ttl_seconds": "how long the link works, 60 s..90 days; absent: RD_RECALL_LINK_TTL_SECONDS (a day)",
    },
    "RecallLinkOut": {"expires_at": f"when the link stops working, {TIME}"},
}

OPERATIONS: dict[tuple[str, str], str] = {
    (
        "get",
        "/v1/audit/public-key",
    ): "The Ed25519 verifier key every checkpoint is signed with, as a C2SP signed-note verifier key and in parts. Compare it with the key the operator published out of band. Public: no signature. A development server without RD_AUDIT_SIGNING_KEY answers 503 CHECKPOINTS_DISABLED.",
    (
        "get",
        "/v1/audit/checkpoints/latest",
    ): "The latest signed checkpoint (C2SP tlog-checkpoint) of one of your tables: its size and Merkle root, signed. Auditor credentials may read every table's, and the system chain's (the nil UUID). 404 with `retryable` while a new table has none yet.",
    (
        "get",
        "/v1/audit/consistency",
    ): "An RFC 9162 consistency proof that the log at checkpoint `to` (default: the latest) extends the log of `from` records: keep a reply's `checkpoint_size`, ask later, and check that nothing was rewritten. Auditors may read every table's.",
    (
        "get",
        "/v1/rounds/{round_id}/proof",
    ): "Every audit record of the round with its RFC 9162 inclusion path in the table's latest checkpoint (signed there and then when none covers the round yet): proves the records are the ones the signed log holds. Auditors may read every round's.",
    (
        "get",
        "/v1/players/{player_id}/rounds",
    ): "Game recall: your last rounds with a bet by this player, newest first, each with only the player's bet and a timeline of every moment they saw (from the audit records), in words and with its time.",
    (
        "post",
        "/v1/rounds/{round_id}/recall-link",
    ): "A signed, expiring link to the round's replay page (`/recall/{round_id}`) that opens without credentials, for support staff or, with `player_id`, the player. The body is optional. A development server without RD_AUDIT_SIGNING_KEY answers 503 RECALL_LINKS_DISABLED.",
    (
        "get",
        "/recall/{round_id}",
    ): "The HTML replay page a recall link opens: the cards, every moment, and a script that checks the shoe's commitment and the round's audit proof in the browser, offline. The link's own signature stands in for credentials; a changed link is 403, an expired one 410.",
}
