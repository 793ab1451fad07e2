"""Several uvicorn workers, each accepting on a listening socket of its own (SO_REUSEPORT), so the kernel spreads
connections over the workers.

uvicorn's own `workers=N` shares one listening socket: every worker wakes for a new connection and the first to
`accept()` takes it, so when 32 keep-alive connections open in a burst one worker usually takes them all and the
others sit idle. With SO_REUSEPORT each worker listens on a socket of its own on the same port and the kernel hands
each new connection to one of them by a hash of its addresses: an even share on average, whatever the timing.

The supervisor holds the sockets, so a restarted worker takes over its predecessor's socket and the connections
waiting in its backlog; supervision itself (restarts, signals, health checks) is uvicorn's. On shutdown it lets go
of them first, and a worker exits when the supervisor dies, however it dies.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import sys

from uvicorn.config import STARTUP_FAILURE, Config
from uvicorn.server import Server
from uvicorn.supervisors.multiprocess import Multiprocess, Process, logger

from service.observability import log_streams
from service.runtime import metrics_server


def listening_sockets(host: str, port: int, count: int) -> list[socket.socket]:
    """`count` sockets listening on host:port together; refuses a port that anything else holds, even a server that
    would share it, since a second server in the SO_REUSEPORT group would silently take a share of the traffic."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:  # no SO_REUSEPORT: fails if anyone holds the port
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
        port = probe.getsockname()[1]  # port 0: the one the kernel picked, for every socket
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(family, socket.SOCK_STREAM)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((host, port))
            sock.listen(2048)  # uvicorn's default backlog
            sock.set_inheritable(True)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class WorkerProcess(Process):
    """uvicorn's worker process, asking the kernel for SIGTERM when its supervisor dies (even by SIGKILL): an orphan
    would go on serving on the port, unsupervised and without /metrics, and keep a new server from starting."""

    def __init__(self, config: Config, sockets: list[socket.socket]) -> None:
        super().__init__(config, sockets)
        self.supervisor = os.getpid()
        self.json_stderr = log_streams.json_stderr()  # a worker's stderr is as its supervisor's

    def target(self, sockets: list[socket.socket] | None = None) -> None:  # runs in the worker
        if self.json_stderr:
            log_streams.take_over()
        _exit_with(self.supervisor)
        try:
            super().target(sockets)
        except Exception:  # else multiprocessing prints the traceback over many lines of stderr
            logger.critical("worker failed", exc_info=True)
            raise SystemExit(1) from None


def _exit_with(supervisor: int) -> None:
    if sys.platform == "linux":
        pr_set_pdeathsig = 1  # <linux/prctl.h>
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != supervisor:  # it died before the request took hold
        os.kill(os.getpid(), signal.SIGTERM)


class SocketPerWorker(Multiprocess):
    """uvicorn's supervisor, with worker i always started on socket i."""

    def __init__(self, config: Config, sockets: list[socket.socket]) -> None:
        super().__init__(config, sockets=[])
        self.slots = sockets
        self.processes_num = len(sockets)

    def init_processes(self) -> None:
        for sock in self.slots:
            process = WorkerProcess(self.config, [sock])
            process.start()
            self.processes.append(process)

    def terminate_all(self) -> None:
        """Let go of the sockets before the workers drain: a socket the supervisor still held would keep queueing new
        connections that no worker accepts any more, and reset them at exit, after their requests were sent."""
        for sock in self.slots:
            sock.close()
        super().terminate_all()

    def restart_all(self) -> None:
        """SIGHUP: replace each worker on its own socket, the new one ready before the old one stops."""
        for idx, old in enumerate(self.processes):
            if self.should_exit.is_set():
                return
            new = WorkerProcess(self.config, [self.slots[idx]])
            new.start()
            if not new.wait_until_ready(self.config.timeout_worker_healthcheck, self.should_exit):
                new.kill()
                new.join()
                return
            old.terminate()
            old.join()
            self.processes[idx] = new

    def keep_subprocess_alive(self) -> None:
        """uvicorn's: restart a worker that died or hangs (on its own socket); stop if one cannot start at all."""
        if self.should_exit.is_set():
            return
        for idx, process in enumerate(self.processes):
            if process.is_alive(timeout=self.config.timeout_worker_healthcheck):
                continue
            process.kill()
            process.join()
            if process.exitcode == STARTUP_FAILURE:
                logger.error(f"Child process [{process.pid}] failed to start, stopping the parent process.")
                self.should_exit.set()
                return
            if self.should_exit.is_set():
                return
            logger.info(f"Child process [{process.pid}] died")
            process = WorkerProcess(self.config, [self.slots[idx]])
            process.start()
            self.processes[idx] = process

    def handle_ttin(self) -> None:
        logger.warning("SIGTTIN ignored: reddog serve runs RD_WORKERS workers, each on its own socket")

    def handle_ttou(self) -> None:
        logger.warning("SIGTTOU ignored: reddog serve runs RD_WORKERS workers, each on its own socket")


def serve(config: Config) -> None:
    """Serve `config.app` (an import string): in this process for one worker, else a listening socket per worker."""
    try:
        if config.workers == 1:
            server = Server(config)
            server.run()
            if not server.started:
                raise SystemExit(STARTUP_FAILURE)
            return
        try:
            sockets = listening_sockets(config.host, config.port, config.workers)
        except OSError as exc:
            message = f"reddog: cannot listen on {config.host}:{config.port}: {exc}"
            log_streams.say("cannot_listen", message, level="error")
            raise SystemExit(STARTUP_FAILURE) from None
        metrics_server.supervisor_starts()
        try:
            SocketPerWorker(config, sockets).run()
        finally:
            for sock in sockets:
                sock.close()
    except KeyboardInterrupt:  # uvicorn raises the SIGINT it caught again once it has shut down
        pass
