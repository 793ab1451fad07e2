"""The friends' page as files the service serves: its headers, its static files and nothing else, and its two
message catalogues, which must say the same things in English and Nepali."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

from litestar import Litestar
from litestar.testing import AsyncTestClient

from paytables.inbetween import inbetween_rules
from service.api.friends_wire import ReactionName
from tests.api.helpers import problem

STATIC = Path(__file__).resolve().parents[2] / "service" / "web" / "static"
PLAY = STATIC / "play"
CATALOGUES = {lang: json.loads((PLAY / "messages" / f"{lang}.json").read_text("utf-8")) for lang in ("en", "ne")}


async def test_the_page_is_served_with_a_policy_that_lets_it_load_and_talk_to_nothing_but_its_own_origin(
    http: AsyncTestClient[Litestar],
) -> None:
    for path in ("/play/inbetween", "/play/inbetween?code=ABCDEFGH", "/play/inbetween/replay?code=ABCDEFGH"):
        page = await http.get(path)
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        policy = dict(part.strip().split(" ", 1) for part in page.headers["content-security-policy"].split(";"))
        assert policy["default-src"] == "'none'"
        for kind in ("script-src", "style-src", "font-src", "connect-src"):
            assert policy[kind] == "'self'", kind
        assert policy["frame-ancestors"] == "'none'"
        assert page.headers["x-content-type-options"] == "nosniff"


async def test_the_static_files_come_with_their_types_and_nothing_outside_the_shipped_folder_is_served(
    http: AsyncTestClient[Litestar],
) -> None:
    types = {
        "/play/static/play/inbetween.js": "text/javascript",
        "/play/static/play/play.css": "text/css",
        "/play/static/play/messages/ne.json": "application/json",
        "/play/static/vendor/uqr.mjs": "text/javascript",
        "/play/static/fonts/noto-sans-devanagari-devanagari-400-normal.woff2": "font/woff2",
    }
    for path, kind in types.items():
        reply = await http.get(path)
        assert reply.status_code == 200, path
        assert reply.headers["content-type"].startswith(kind), path
    for path in (
        "/play/static/../app.py",
        "/play/static/%2e%2e/app.py",
        "/play/static/play/missing.js",
        "/play/static/vendor/README.md",  # shipped, but not a type a page loads
        "/play/static/.hidden.js",
        "/play/static/recall_page.py",
    ):
        problem(await http.get(path), 404, "NOT_FOUND")


def test_the_english_and_nepali_catalogues_hold_the_same_messages_with_the_same_placeholders() -> None:
    en, ne = CATALOGUES["en"], CATALOGUES["ne"]
    assert sorted(en) == sorted(ne)
    for key in en:
        assert set(re.findall(r"\{(\w+)\}", en[key])) == set(re.findall(r"\{(\w+)\}", ne[key])), key
        assert ne[key].strip(), key
    # The table's own words: पोस्ट for a post, एक्का for an ace.
    assert "पोस्ट" in ne["post.first"]
    assert "एक्का" in ne["move.ace_high"]


def test_every_message_the_scripts_name_is_in_the_catalogue_and_every_offered_rule_set_is_released() -> None:
    scripts = "\n".join(p.read_text("utf-8") for p in PLAY.glob("*.js"))
    named = set(re.findall(r"\bt\(\s*\"([^\"]+)\"", scripts))
    assert named, "no message keys found: the pattern is out of date"
    assert named - set(CATALOGUES["en"]) == set()
    for prefix in re.findall(r"\bt\(\s*`([a-z_.]+)\$\{", scripts):  # keys built from a value: some exist
        assert any(key.startswith(prefix) for key in CATALOGUES["en"]), prefix
    offered = re.search(r"export const RULESETS = \[(.*?)\];", (PLAY / "start-view.js").read_text("utf-8"), re.S)
    assert offered is not None
    ids = re.findall(r"\"([^\"]+)\"", offered.group(1))
    released = inbetween_rules.released()
    for ruleset in ids:
        assert ruleset in released, ruleset
        assert f"ruleset.{ruleset}" in CATALOGUES["en"], ruleset


def test_the_pages_scripts_never_parse_html_and_name_no_other_origin() -> None:
    for path in [*PLAY.glob("*"), STATIC / "vendor" / "uqr.mjs"]:
        if path.is_dir():
            continue
        text = path.read_text("utf-8")
        assert re.findall(r"https?://(?!www\.w3\.org/2000/svg)", text) == [], path.name
        if path.suffix == ".js":  # names people type reach the page as text only
            assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write", text), path.name


def test_the_page_draws_exactly_the_reactions_the_api_takes_each_named_in_both_languages() -> None:
    drawn = re.search(r"export const REACTIONS = \[(.*?)\];", (PLAY / "reactions.js").read_text("utf-8"), re.S)
    assert drawn is not None
    names = re.findall(r"\"([a-z]+)\"", drawn.group(1))
    assert sorted(names) == sorted(get_args(ReactionName))
    script = (PLAY / "reactions.js").read_text("utf-8")
    for name in names:  # each drawn by the page itself, as an SVG
        assert re.search(rf"^  {name}: \[", script, re.M), name
    for name in names:
        assert CATALOGUES["en"][f"reaction.{name}"], name
        assert CATALOGUES["ne"][f"reaction.{name}"], name


def test_the_pages_scripts_hold_no_emoji_glyphs_which_a_phone_without_a_colour_emoji_font_draws_as_boxes() -> None:
    for path in PLAY.glob("*.js"):
        drawn = [f"U+{ord(c):04X}" for c in path.read_text("utf-8") if 0x1F000 <= ord(c) <= 0x1FAFF]
        assert drawn == [], path.name
