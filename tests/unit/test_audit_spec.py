"""docs/audit.md against the code: the worked example is regenerated, and every event kind and field is described."""

from __future__ import annotations

import hashlib
import json
import re
import typing
from pathlib import Path

import msgspec

from audit.system_events import SettingsInForce, SystemEvent
from paytables.red_dog import loader
from paytables.red_dog.events import Event
from paytables.red_dog.table import TableSettings
from paytables.releases import canonical_bytes
from tests.support.audit_example import END, START, markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "audit.md"


def page() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_worked_example_is_what_the_code_writes_today() -> None:
    text = page()
    shown = text[text.index(START) : text.index(END) + len(END) + 1]
    assert shown == markdown(), "regenerate it: python -m tests.support.audit_example, between the example markers"


def test_the_example_hashes_are_the_sha256_chain_of_the_bytes_shown() -> None:
    """Recomputed from the page alone, the way a reader with sha256sum would: no project code involved."""
    example = page()[page().index(START) :]
    shown = re.findall(r"\*\*seq (\d+)\*\* `(\w+)`, hash `([0-9a-f]{64})`\n\n```json\n(.*)\n```", example)
    assert [int(seq) for seq, *_ in shown] == list(range(1, 12))
    prev = bytes(32)
    for _, kind, digest, body in shown:
        data = body.encode("utf-8")
        assert json.loads(data)["event"]["kind"] == kind
        assert hashlib.sha256(prev + data).hexdigest() == digest
        prev = bytes.fromhex(digest)


def test_the_paytable_sha256_shown_is_the_hash_of_the_canonical_terms_shown() -> None:
    standard = loader.get("standard/v1")
    terms = canonical_bytes(standard.terms).decode()
    assert f"printf '%s' '{terms}' | sha256sum\n# {standard.sha256}" in page()
    assert hashlib.sha256(terms.encode()).hexdigest() == standard.sha256


def test_every_event_kind_and_every_one_of_its_fields_is_described() -> None:
    text = page()
    for event in typing.get_args(Event):
        kind = event.__struct_config__.tag
        start = text.index(f"**`{kind}`**")
        section = text[start : text.find("\n**`", start + 1)]
        for field in msgspec.structs.fields(event):
            assert re.search(rf"`{field.name}[`.]", section), (kind, field.name)
    settings = text[text.index("**`table_created`**") : text.index("**`table_closed`**")]
    for field in msgspec.structs.fields(TableSettings):
        assert f"settings.{field.name}`" in settings, field.name


def test_every_system_chain_kind_and_every_one_of_its_fields_is_described() -> None:
    text = page()
    chain = text[text.index("## The system chain (schema 3)") : text.index("## Schema 1")]
    for event in typing.get_args(SystemEvent):
        kind = event.__struct_config__.tag
        start = chain.index(f"**`{kind}`**")
        section = chain[start : chain.find("\n**`", start + 1)]
        for field in msgspec.structs.fields(event):
            assert re.search(rf"`{field.name}[`.]", section), (kind, field.name)
    started = chain[chain.index("**`service_started`**") : chain.index("**`service_stopped`**")]
    for field in msgspec.structs.fields(SettingsInForce):
        assert f"settings.{field.name}`" in started, field.name
