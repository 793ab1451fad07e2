"""Throwaway PostgreSQL servers from Debian's binaries, on ports of their own: a primary, its streaming standby, a
base backup and a WAL archive. Run as the `postgres` system user when the tests run as root (the server refuses
root); each lives in a directory of its own under the system temp folder, deleted at the end."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import msgspec

from service.db.app_login import login_url
from tests.support.scratch import TEST_LOGIN, TEST_LOGIN_PASSWORD

# fsync off: the faults here kill processes, never the machine, so the kernel keeps every write they made.
SETTINGS = {"listen_addresses": "'127.0.0.1'", "fsync": "off", "max_connections": "50", "wal_keep_size": "'64MB'"}


def binaries() -> Path | None:
    """The newest Debian PostgreSQL's bin folder, or None when none is installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_basebackup"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


def _server_user() -> str | None:
    return "postgres" if os.geteuid() == 0 else None


def pg(tool: str, *args: str, timeout: float = 60) -> str:
    """Run one of the binaries as the server's user; its output, or the failure with what it said."""
    bin_dir = binaries()
    assert bin_dir is not None, "Debian's PostgreSQL binaries are not installed"
    done = subprocess.run(  # noqa: S603 - a fixed tool with the test's own arguments
        [str(bin_dir / tool), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        user=_server_user(),
        group=_server_user(),
    )
    assert done.returncode == 0, f"{tool} {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Node(msgspec.Struct, frozen=True, kw_only=True):
    """One server: its data folder and port."""

    pgdata: Path
    port: int

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def owner_url(self) -> str:
        return f"postgresql://postgres@{self.host}/postgres"

    @property
    def app_url(self) -> str:
        return login_url(self.owner_url, TEST_LOGIN, TEST_LOGIN_PASSWORD)

    def start(self) -> None:
        log = self.pgdata / "server.log"
        try:
            pg("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.pgdata), "-l", str(log))
        except AssertionError as failed:
            raise AssertionError(f"{failed}\n{log.read_text()[-3000:] if log.exists() else ''}") from None

    def stop(self, mode: str = "immediate") -> None:
        """pg_ctl stop: "immediate" to tear down, "fast" for a clean shutdown (which archives what WAL is left)."""
        if (self.pgdata / "postmaster.pid").exists():
            pg("pg_ctl", "stop", "-w", "-m", mode, "-D", str(self.pgdata))

    def promote(self) -> None:
        pg("pg_ctl", "promote", "-w", "-t", "60", "-D", str(self.pgdata))

    def kill(self) -> None:
        """SIGKILL to the postmaster and every process it started, as a machine lost takes them all at once."""
        postmaster = int((self.pgdata / "postmaster.pid").read_text().split()[0])
        for pid in [*_children(postmaster), postmaster]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        (self.pgdata / "postmaster.pid").unlink(missing_ok=True)  # a killed postmaster leaves it behind


def _children(pid: int) -> list[int]:
    found = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(stat).read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(stat.split("/")[2]))
    return found


def configure(node: Node, settings: dict[str, str]) -> None:
    """Append settings to the node's postgresql.conf (the last occurrence of a setting wins)."""
    lines = [f"{name} = {value}" for name, value in {**SETTINGS, "port": str(node.port), **settings}.items()]
    with (node.pgdata / "postgresql.conf").open("a") as conf:
        conf.write("\n".join(lines) + "\n")


@contextlib.contextmanager
def workspace() -> Iterator[Path]:
    """A folder the server's user may write, deleted after with everything in it (servers stopped first)."""
    folder = Path(tempfile.mkdtemp(prefix="reddog-debian-cluster-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def new_node(folder: Path, name: str) -> Node:
    node = Node(pgdata=folder / name, port=free_port())
    pg("initdb", "-D", str(node.pgdata), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
    return node


def base_backup(primary: Node, folder: Path, name: str, *, standby: bool) -> Node:
    """pg_basebackup of the primary into a new node's folder; `standby` makes it follow the primary by streaming."""
    node = Node(pgdata=folder / name, port=free_port())
    args = ["-D", str(node.pgdata), "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres", "-X", "stream"]
    pg("pg_basebackup", *args, "--no-sync", "--checkpoint=fast")
    if standby:
        (node.pgdata / "standby.signal").touch()
        conninfo = f"host=127.0.0.1 port={primary.port} user=postgres application_name={name}"
        # Promoted, it has no standby of its own: a synchronous_standby_names copied from the primary would make
        # every commit wait for one forever (an operator, or CloudNativePG, names the next standby when it joins).
        configure(node, {"primary_conninfo": f"'{conninfo}'", "hot_standby": "on", "synchronous_standby_names": "''"})
    return node


class Pair(msgspec.Struct, frozen=True, kw_only=True):
    primary: Node
    standby: Node

    @property
    def app_url(self) -> str:
        """The service's DATABASE_URL: both hosts, and only a writable one will do."""
        url = self.primary.app_url.replace(self.primary.host, f"{self.primary.host},{self.standby.host}")
        return f"{url}?target_session_attrs=read-write"


@contextlib.contextmanager
def replicated_pair(*, synchronous: bool) -> Iterator[Pair]:
    """A primary and a streaming standby named `standby`; with `synchronous`, a commit is acknowledged only once the
    standby has flushed it (synchronous_commit = on, the standby in synchronous_standby_names)."""
    with workspace() as folder:
        primary = new_node(folder, "primary")
        names = "'standby'" if synchronous else "''"
        configure(primary, {"synchronous_standby_names": names, "synchronous_commit": "on"})
        primary.start()
        standby = None
        try:
            standby = base_backup(primary, folder, "standby", standby=True)
            standby.start()
            yield Pair(primary=primary, standby=standby)
        finally:
            for node in (standby, primary):
                if node is not None:
                    with contextlib.suppress(AssertionError, OSError):
                        node.stop()


def archiving(node: Node, archive: Path) -> None:
    """Every completed WAL segment copied to `archive` (what Barman Cloud does to an object store)."""
    archive.mkdir()
    if os.geteuid() == 0:
        shutil.chown(archive, "postgres", "postgres")
    # Copied under a temporary name and renamed: a segment is never seen half-written.
    command = f"test ! -f {archive}/%f && cp %p {archive}/%f.part && mv {archive}/%f.part {archive}/%f"
    configure(node, {"archive_mode": "on", "archive_command": f"'{command}'"})


def restore(base: Node, folder: Path, archive: Path, target_time: str) -> Node:
    """A copy of a base backup, recovering from the archive to `target_time` and then promoted to a primary."""
    node = Node(pgdata=folder / "restored", port=free_port())
    shutil.copytree(base.pgdata, node.pgdata)
    if os.geteuid() == 0:
        for path in [node.pgdata, *node.pgdata.rglob("*")]:
            shutil.chown(path, "postgres", "postgres")
    (node.pgdata / "recovery.signal").touch()
    configure(
        node,
        {
            "archive_mode": "off",
            "restore_command": f"'cp {archive}/%f %p'",
            "recovery_target_time": f"'{target_time}'",
            "recovery_target_action": "'promote'",
        },
    )
    return node
