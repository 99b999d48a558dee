"""What every reader hands to the block stage: the document as lines of CR-shaped text.

A reader's job is to take its format apart (markup, pages, paragraphs) and to say where each
line it produced came from. It never decides what a rule is: that is the block stage's and the
grammar's job, the same for every format.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from crparse.nodes import Diagnostic, Link, Residue, SourceFile

Span = tuple[int, int]


@dataclass(slots=True)
class Extract:
    """`lines` are what the block stage reads. `origin[i]` is the (first, last) source line the
    line `lines[i]` was made from; when `origin` is None, `lines[i]` is source line i + 1.

    Source lines (`source_text`, what `crparse text` prints) are the decoded input's lines for
    text formats (plain text, Markdown, reST, where a multi-file edition is numbered as the
    concatenation of its `files`), and the lines of the text extracted from HTML, DOCX, PDF and
    RTF, where the input has no lines of its own.
    """

    format: str
    lines: list[str]
    origin: list[Span] | None = None
    source_text: list[str] | None = None
    encoding: str = "utf-8"
    bom: bool = False
    line_endings: str = "none"
    residue: list[Residue] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    files: tuple[SourceFile, ...] = ()

    @property
    def source_lines(self) -> list[str]:
        return self.source_text if self.source_text is not None else self.lines

    def source_line(self, index: int) -> int:
        """The first source line of `lines[index]`."""
        return self.origin[index][0] if self.origin is not None else index + 1


def said(err: BaseException) -> str:
    """An exception as the reason a refusal gives, on one line. Never empty: a MemoryError, or an
    error a library raises without a message, says nothing of itself."""
    if isinstance(err, MemoryError):
        return "out of memory"
    return " ".join(str(err).split()) or type(err).__name__
