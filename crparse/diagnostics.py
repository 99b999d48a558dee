"""Diagnostics shared by every stage: what the parser noticed, with a line number where it has one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]

SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(frozen=True, slots=True)
class Diagnostic:
    line: int | None
    severity: Severity
    code: str
    message: str

    def to_dict(self) -> dict:
        return {"line": self.line, "severity": self.severity, "code": self.code, "message": self.message}

    def format(self, path: str | None = None) -> str:
        where = path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.severity}: {self.message} [{self.code}]"
