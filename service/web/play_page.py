"""The friends' In Between page (/play/inbetween) and the files it loads: one HTML shell, plain ES modules, styles,
message catalogues, fonts and a vendored QR encoder, all from service/web/static. No build step: what is in the
folder is what the browser runs."""

from __future__ import annotations

import functools
import re
from importlib import resources

# The page runs only scripts, styles and fonts of its own origin, talks only to it (fetch and EventSource), and
# cannot be framed: nothing it shows can come from another site.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; media-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}
TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
    ".txt": "text/plain; charset=utf-8",
    ".html": "text/html; charset=utf-8",
}
# A static path is folders and a file name of plain characters: no `..`, no hidden files, nothing but what ships.
_PATH = re.compile(r"(?:[a-z0-9][a-z0-9_-]*/){0,2}[a-z0-9][a-z0-9_.-]*\.[a-z0-9]+")
SHELLS = {"inbetween": "play/inbetween.html", "inbetween/replay": "play/replay.html"}


@functools.cache
def shipped(path: str) -> tuple[bytes, str] | None:
    """A file under static/ and its content type; None for a path that is not a shipped file of a known type."""
    suffix = path[path.rfind(".") :] if "." in path else ""
    if not _PATH.fullmatch(path) or ".." in path or suffix not in TYPES:
        return None
    file = resources.files("service.web") / "static" / path
    if not file.is_file():
        return None
    return file.read_bytes(), TYPES[suffix]
