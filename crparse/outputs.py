"""Writing an output file whole: through a new file renamed over the name.

Two things make this the only way crparse writes a file it owns (a cache entry, an emitted test
file): a run killed while writing leaves the old file or none, never half of one; and a symbolic
or hard link standing at the name is replaced, never followed to overwrite the file it points to.
The new file is created exclusively (O_EXCL, O_NOFOLLOW) under a random name, so a link planted at
that name is not written through either.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def replace(path: Path, data: bytes | str) -> None:
    """Write `data` (str as UTF-8) as `path`, atomically. The directory must exist."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(8):
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(temporary, flags, 0o666)  # the umask applies, as to any file written
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(f"cannot create a temporary file beside {path}")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
