"""The cyclic garbage collector paused while an export is read: the one thing that made it pay for what it keeps.

Reading an export makes millions of small objects and keeps many alive (rounds waiting for their shoe's reveal,
finished rounds kept for a late rollback, the chains' tails). None of them form reference cycles: reference counting
frees each as soon as it is dropped. The cyclic collector still walks every live container each time enough new ones
have been made, so a replay spent about 30% of its time in passes that found nothing. Pausing it while lines are fed
frees nothing later than before, except cyclic garbage, which none of it is.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Switch the cyclic collector off for the block, and back on after it if it was on (nesting is fine)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            # Frozen first: switched on over millions of objects made during the pause, the collector's next pass
            # walked every one of them (6% of a whole replay), to find nothing. Frozen objects are still freed
            # when their last reference goes; only a cycle among them would wait forever, and none is made.
            gc.freeze()
            gc.enable()
