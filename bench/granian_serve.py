"""The service served by granian instead of uvicorn, for `bench.server_compare` alone: `reddog serve`'s own start
(settings, the development signing key, the metrics directory and its server), then granian's ASGI server on
RD_HOST:RD_PORT with RD_WORKERS workers and the same app factory.

Not a way to run the product: granian keeps a header timeout but none of the product protocol's body timeout,
connection cap or trusted-proxy rules (service/runtime/http_protocol.py), so it answers the question "what would a
faster server save per request" and nothing more. granian is not a dependency: `pip install granian` first.
"""

from __future__ import annotations

import os


def main() -> None:
    from granian.constants import Interfaces, Loops
    from granian.server import Server

    from service.cli.commands import _development_signing_key, _serve_metrics, metrics_directory
    from service.cli.database_setup import serving_url, settings_or_exit

    settings = settings_or_exit()
    _development_signing_key(settings)
    url, _server = serving_url(settings)
    os.environ["DATABASE_URL"] = url
    with metrics_directory(settings.data_dir):
        _serve_metrics(settings)
        Server(
            "service.app:app_from_env",
            address=settings.host,
            port=settings.port,
            interface=Interfaces.ASGI,
            workers=settings.workers,
            loop=Loops.uvloop,  # as uvicorn's, which takes uvloop when it is installed
            factory=True,
            log_access=False,
        ).serve()


if __name__ == "__main__":
    main()
