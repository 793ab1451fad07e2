"""Every alert links its runbook: a section of docs/runbooks.md that exists, saying what it means, where to look and
what to do; and the runbooks' own links to other docs land on headings that exist."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from tests.deploy.support import ROOT, rule_groups

RUNBOOKS = ROOT / "docs" / "runbooks.md"
PARTS = ("**What it means.**", "**What to look at.**", "**What to do.**")


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading's text (github-slugger): lower case, every character but letters, digits, marks,
    `_`, `-` and spaces dropped, each space a hyphen."""
    kept = "".join(c for c in heading.lower() if c in "_- " or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file, a repeated one numbered -1, -2 as GitHub numbers it."""
    seen: dict[str, int] = {}
    found = set()
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        in_code ^= line.startswith("```")
        if in_code or not (m := re.match(r"#{1,6} (.+?)\s*#*$", line)):
            continue
        slug = anchor(m.group(1))
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found


def sections(path: Path) -> dict[str, str]:
    """Each `## ` section's text by its heading."""
    parts = re.split(r"^## (.+)$", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def alerts() -> dict[str, dict[str, str]]:
    return {r["alert"]: r.get("annotations", {}) for g in rule_groups() for r in g["rules"] if "alert" in r}


def test_anchors_are_the_ones_github_gives_its_headings() -> None:
    # Worked by hand from GitHub's rule: backticks, colons and commas go; spaces become hyphens, hyphens stay.
    assert anchor("`reddog audit verify --db`") == "reddog-audit-verify---db"
    assert anchor("Two roles: the owner migrates, a login in `reddog_app` serves") == (
        "two-roles-the-owner-migrates-a-login-in-reddog_app-serves"
    )
    assert anchor("RedDogNoTargets") == "reddognotargets"


def test_a_repeated_heading_gets_a_numbered_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n## Notes\n```\n## not a heading\n```\n## Notes\n", encoding="utf-8")
    assert anchors(page) == {"title", "notes", "notes-1"}


def test_every_alert_has_a_runbook_url_into_a_section_of_the_runbooks_that_exists() -> None:
    existing = anchors(RUNBOOKS)
    urls = {name: annotations.get("runbook_url", "") for name, annotations in alerts().items()}
    assert all(url.startswith("docs/runbooks.md#") for url in urls.values()), urls
    missing = {name: url for name, url in urls.items() if url.partition("#")[2] not in existing}
    assert missing == {}


def test_each_alert_s_runbook_says_what_it_means_where_to_look_and_what_to_do() -> None:
    found = sections(RUNBOOKS)
    assert set(found) >= set(alerts())
    lacking = {name: [p for p in PARTS if p not in found[name]] for name in alerts()}
    assert lacking == {name: [] for name in alerts()}


def test_every_runbook_is_for_an_alert_that_exists() -> None:
    assert {h for h in sections(RUNBOOKS) if h.startswith("RedDog")} == set(alerts())


def test_the_runbooks_links_to_other_documents_land_on_headings_that_exist() -> None:
    links = re.findall(r"\]\(([^)#]+\.md)(?:#([^)]+))?\)", RUNBOOKS.read_text(encoding="utf-8"))
    assert links
    broken = [
        (target, fragment)
        for target, fragment in links
        if not (RUNBOOKS.parent / target).exists() or (fragment and fragment not in anchors(RUNBOOKS.parent / target))
    ]
    assert broken == []
