"""Errors crparse raises on purpose. Anything else escaping the library is a bug."""

from __future__ import annotations


class CrparseError(Exception):
    """Base class: carries the file and line it is about, so the CLI can print one clear line."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def located(self, path: str | None) -> CrparseError:
        """The same error, naming `path` if it did not name a file yet."""
        if self.path is None:
            self.path = path
        return self

    def __str__(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}"


def quoted(given: str, most: int = 80) -> str:
    """An argument echoed in a message: quoted (".." is "" once its dots go), and cut short (an
    argument of 100,000 digits was echoed whole, a 100 KB message line: sweep 27)."""
    if len(given) <= most:
        return repr(given)
    return repr(given[:most]) + f"... ({len(given):,} characters)"


class RefusedInput(CrparseError):
    """The input is not a Comprehensive Rules document (empty, binary, another text)."""


class NotADocument(RefusedInput):
    """The input is no Comprehensive Rules document at all (no numbered rules; binary data): what
    a walk of a directory of documents may meet beside them (a README), unlike a document refused
    for its size, its markup or a budget."""


class UnsupportedFormat(CrparseError):
    """The input is a known format crparse does not read (yet)."""


class CommandError(CrparseError):
    """A command that cannot run as given (no input, an output it cannot use): about the command
    line, not about a file read, so it names none unless given one ("<input>" is for bytes)."""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class SettingError(CommandError):
    """An environment variable crparse reads holds a value it cannot take. It is about no file,
    so it names none, whichever file was being read."""

    def located(self, path: str | None) -> SettingError:
        return self


class OutputError(CommandError):
    """Standard output cannot be written (closed, a full disk, a device error). About the run's
    output, not about any input: a batch stops at the first (every later write would fail the
    same way), and no file is named."""
