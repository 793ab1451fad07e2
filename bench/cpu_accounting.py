"""CPU time from /proc over a measured window: per process tree (service, PostgreSQL, generator) and the machine."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

import msgspec

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class ProcessTimes(msgspec.Struct, frozen=True, kw_only=True):
    """One line of /proc/<pid>/stat, reduced to what CPU accounting needs (times in clock ticks)."""

    pid: int
    ppid: int
    own: int  # utime + stime
    reaped_children: int  # cutime + cstime: children that exited and were waited for


class MachineTimes(msgspec.Struct, frozen=True, kw_only=True):
    busy: int  # user + nice + system + irq + softirq + steal (guest time is inside user)
    total: int  # busy + idle + iowait


class Snapshot(msgspec.Struct, frozen=True, kw_only=True):
    at: float  # time.monotonic()
    processes: dict[int, ProcessTimes]
    machine: MachineTimes


def parse_process_stat(text: str) -> ProcessTimes:
    """The command name sits in parentheses and may itself hold spaces or parentheses: split after the last ')'."""
    pid_text, _, rest_with_name = text.partition(" (")
    fields = rest_with_name.rsplit(") ", 1)[1].split()
    # fields[0] is field 3 of proc(5) (state): field n is fields[n - 3].
    ppid, utime, stime, cutime, cstime = (int(fields[i]) for i in (1, 11, 12, 13, 14))
    return ProcessTimes(pid=int(pid_text), ppid=ppid, own=utime + stime, reaped_children=cutime + cstime)


def parse_machine_stat(text: str) -> MachineTimes:
    """The aggregate `cpu` line of /proc/stat."""
    line = next(row for row in text.splitlines() if row.startswith("cpu "))
    user, nice, system, idle, iowait, irq, softirq, steal = (int(v) for v in line.split()[1:9])
    busy = user + nice + system + irq + softirq + steal
    return MachineTimes(busy=busy, total=busy + idle + iowait)


def descendants(processes: Mapping[int, ProcessTimes], root: int) -> set[int]:
    """The root and every live process below it."""
    children: dict[int, list[int]] = {}
    for p in processes.values():
        children.setdefault(p.ppid, []).append(p.pid)
    found: set[int] = set()
    todo = [root] if root in processes else []
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def tree_ticks(processes: Mapping[int, ProcessTimes], root: int) -> int:
    """Everything the tree has used: each live process's own time plus what its reaped children used.

    A process that exits moves its time into its parent's reaped-children counters when waited for, so the sum stays
    whole as backends and workers come and go.
    """
    return sum(processes[pid].own + processes[pid].reaped_children for pid in descendants(processes, root))


def tree_delta(before: Snapshot, after: Snapshot, root: int) -> int:
    return tree_ticks(after.processes, root) - tree_ticks(before.processes, root)


def pids_delta(before: Snapshot, after: Snapshot, pids: Iterable[int]) -> int:
    """Own time of the given processes over the window; one born inside the window counts from zero."""
    total = 0
    for pid in pids:
        end = after.processes.get(pid)
        if end is not None:
            start = before.processes.get(pid)
            total += end.own - (start.own if start is not None and start.ppid == end.ppid else 0)
    return total


def ms(ticks: int) -> float:
    return ticks * 1000 / CLOCK_TICKS


def busy_fraction(ticks: int, seconds: float, cores: int) -> float:
    """Ticks as a share of all the machine's cores over the window."""
    return ticks / (seconds * CLOCK_TICKS * cores) if seconds > 0 else 0.0


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:  # the process exited between listing and reading
        return None


def snapshot(proc: Path = Path("/proc")) -> Snapshot:
    processes: dict[int, ProcessTimes] = {}
    for entry in proc.iterdir():
        if entry.name.isdigit() and (text := _read(entry / "stat")) is not None:
            times = parse_process_stat(text)
            processes[times.pid] = times
    return Snapshot(at=time.monotonic(), processes=processes, machine=parse_machine_stat((proc / "stat").read_text()))


def parent_of(pid: int, proc: Path = Path("/proc")) -> int | None:
    text = _read(proc / str(pid) / "stat")
    return None if text is None else parse_process_stat(text).ppid


class WindowCpu(msgspec.Struct, frozen=True, kw_only=True):
    """CPU milliseconds each named process tree used over one window, and what the rest of the machine did."""

    seconds: float
    cores: int
    ms: dict[str, float]
    machine_ms: float
    other_ms: float  # the machine's busy time that none of the named trees used: other engineers, this harness

    @property
    def other_load(self) -> float:
        """The rest of the machine's load as a fraction of all its cores (0.5 = one of two cores busy elsewhere)."""
        return self.other_ms / (self.seconds * 1000 * self.cores) if self.seconds > 0 else 0.0

    @property
    def machine_load(self) -> float:
        return self.machine_ms / (self.seconds * 1000 * self.cores) if self.seconds > 0 else 0.0


def account(before: Snapshot, after: Snapshot, roots: Mapping[str, int | None], cores: int) -> WindowCpu:
    """Each root's whole tree over the window; a root of None (a server not on this machine) is left out."""
    ticks = {name: tree_delta(before, after, pid) for name, pid in roots.items() if pid is not None}
    machine = after.machine.busy - before.machine.busy
    return WindowCpu(
        seconds=after.at - before.at,
        cores=cores,
        ms={name: ms(t) for name, t in ticks.items()},
        machine_ms=ms(machine),
        other_ms=ms(machine - sum(ticks.values())),
    )
