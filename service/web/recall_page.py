"""The replay page a recall link opens: the round drawn as cards, announced, decided and paid, its paytable, its
shoe's commitment and reveal, and its audit records with their inclusion proof, all checked in the page itself by a
small script (static/recall.js) that uses WebCrypto and nothing from the network."""

from __future__ import annotations

import functools
import html
from datetime import datetime
from importlib import resources

import msgspec

from audit.signed_note import parse_verifier
from paytables.red_dog import loader
from paytables.red_dog.round import Bet, DealtCard
from service.use_cases.recall_use_cases import RecallPage
from service.web.recall_words import SUITS, card_name, moment_text, players_of

# The page runs only its own script and style (by nonce), loads nothing, sends nothing, and cannot be framed.
CSP = (
    "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
CHECKS = [
    ("commitment", "The shoe's commitment matches its revealed salt and order"),
    ("cards", "The cards were dealt from the committed shoe, in order"),
    ("signature", "The audit checkpoint is signed by the service's key"),
    ("records", "The round's audit records are intact and match what is shown"),
    ("inclusion", "Every record is in the signed checkpoint's Merkle tree"),
]


@functools.cache
def _static(name: str) -> str:
    return (resources.files("service.web") / "static" / name).read_text(encoding="utf-8")


def e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _time(at: datetime | None) -> str:
    return "—" if at is None else f"{at:%Y-%m-%d %H:%M:%S} UTC"


def _card(card: DealtCard) -> str:
    rank, suit = card_name(card.card)[:-1], SUITS[card.card[1]]
    colour = " red" if card.card[1] in "HD" else ""
    label = "third card" if card.position == 3 else f"post {card.position}"
    return (
        f'<div class="card{colour}" data-card="{e(card.card)}" data-position="{card.position}">'
        f'<span class="corner">{e(rank)}<br>{suit}</span><span class="pip">{suit}</span>'
        f'<span class="label">{label}</span></div>'
    )


def _num(value: object) -> str:
    return f'<td class="num">{"—" if value is None else e(value)}</td>'


def _bet_row(bet: Bet) -> str:
    decision = "—" if bet.decision is None else bet.decision.value.replace("_", " ")
    result = "—" if bet.result is None else bet.result.value
    net = None if bet.net is None else f"{bet.net:+d}"
    return (
        f"<tr><td>{e(bet.player_id)}</td>{_num(bet.ante)}{_num(bet.raise_amount)}<td>{e(decision)}</td>"
        f"<td>{e(result)}</td>{_num(bet.payout)}{_num(net)}</tr>"
    )


def _paytable(paytable_id: str) -> str:
    terms = loader.get(paytable_id).terms
    cells = "".join(f'<td class="num">{odds} to 1</td>' for odds in terms.spread_odds)
    spreads = "".join(f"<th>{n}</th>" for n in range(1, len(terms.spread_odds) + 1))
    return (
        f"<table><tr><th>spread</th>{spreads}</tr><tr><th>pays</th>{cells}</tr></table>"
        f"<p>Trips pay {terms.trips_odds} to 1. A third card equal to a post: {e(terms.post_rule.value)}. "
        f"A raise may be up to {_multiple(terms.max_raise_multiple)}.</p>"
    )


def _multiple(times: int) -> str:
    return "the ante" if times == 1 else f"{times} times the ante"


def _checks() -> str:
    return "".join(
        f'<div class="check" data-check="{name}" data-state="checking"><span class="verdict">checking…</span>'
        f'<b>{e(title)}</b><div class="detail"></div></div>'
        for name, title in CHECKS
    )


def evidence(page: RecallPage) -> bytes:
    """What the page's script checks, as JSON (safe inside a <script> element: `<` is escaped)."""
    rnd, reveal = page.recall.view.round, page.recall.view.reveal
    verifier = parse_verifier(page.verifier_key)
    data = {
        "round_id": rnd.round_id,
        "table_id": rnd.table_id,
        "commitment": rnd.commitment,
        "reveal": None if reveal is None else {"salt": reveal.salt, "order": reveal.order},
        "cards": [{"position": c.position, "card": c.card, "shoe_index": c.shoe_index} for c in rnd.cards],
        "verifier": {"name": verifier.name, "key_id": f"{verifier.key_id:08x}", "public_key": verifier.public_key},
        "proof": page.proof,
    }
    return msgspec.json.encode(data).replace(b"<", b"\\u003c")


def render(page: RecallPage, nonce: str, expires_at: datetime) -> str:
    recall = page.recall
    rnd, reveal = recall.view.round, recall.view.reveal
    sha = loader.get(rnd.paytable).sha256
    announce = (
        f"Spread {rnd.spread}: pays {rnd.payout_odds} to 1" if rnd.spread is not None
        else (rnd.outcome.value.capitalize() if rnd.outcome is not None else "")
    )  # fmt: skip
    players = players_of(recall)
    moments = "".join(
        f"<tr><td>{e(_time(m.at))}</td><td>{e(moment_text(m.event, players))}</td></tr>" for m in recall.moments
    )
    shoe = (
        "<p>The shoe is still in play; its salt and order are published when it is retired.</p>"
        if reveal is None
        else f'<p>Salt: <span class="hash">{e(reveal.salt)}</span></p>'
        f'<p>Order: <span class="hash">{e(reveal.order)}</span></p>'
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>REPLAY of round {e(rnd.round_id)}</title>
<style nonce="{nonce}">{_static("recall.css")}</style></head>
<body><div class="replay-banner" id="replay-banner">REPLAY — a record of a past round, not a live game
<small>Nothing on this page can be played or changed. This link works until {e(_time(expires_at))}.</small></div>
<main>
<h1>Round {e(rnd.round_id)}</h1>
<p class="meta">Table {e(rnd.table_id)} · {e(rnd.paytable)} · {rnd.decks} deck(s) · {e(recall.currency)} (minor units)
{" · test round" if rnd.test else ""} · opened {e(_time(rnd.opened_at))} · {e(rnd.status.value)}
{e(_time(rnd.settled_at)) if rnd.settled_at else ""}</p>
<div id="summary" data-state="checking">Checking this replay…</div>
<div class="felt" id="cards">{"".join(_card(c) for c in rnd.cards)}
<span class="announce" id="announce">{e(announce)}</span></div>
{f"<p><b>Void:</b> {e(rnd.void_reason)}</p>" if rnd.void_reason else ""}
<h2>Bets</h2>
<table id="bets"><tr><th>player</th><th>ante</th><th>raise</th><th>decision</th><th>result</th><th>payout</th>
<th>net</th></tr>{"".join(_bet_row(b) for b in rnd.bets)}</table>
<h2>What happened, and when</h2>
<table id="timeline"><tr><th>time</th><th>event</th></tr>{moments}</table>
<h2>Paytable {e(rnd.paytable)}</h2>{_paytable(rnd.paytable)}
<p>sha256 of its terms: <span class="hash">{e(sha)}</span> (the round records {e(rnd.paytable_sha256)})</p>
<h2>The shoe</h2>
<p>Commitment, published before the first card: <span class="hash" id="commitment">{e(rnd.commitment)}</span></p>
{shoe}
<h2>Checks made in this page</h2>
{_checks()}
<p>Audit checkpoint: {page.proof.tree_size} records of this table's log, signed by
<span class="hash">{e(page.verifier_key)}</span>.</p>
</main>
<script type="application/json" id="evidence">{evidence(page).decode()}</script>
<script nonce="{nonce}">{_static("recall.js")}</script>
</body></html>
"""
