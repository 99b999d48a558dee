"""The cyclic garbage collector, paused around stages that allocate many small objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """A parse, or a document's references, allocates tens of thousands of small, acyclic
    objects; letting the cyclic collector rescan them (and every live tree) several times per
    call costs more than the work itself. Reference counting frees them as usual; the collector
    is restored on the way out."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
