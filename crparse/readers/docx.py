"""The DOCX reader: one source line per line of each body paragraph.

Word keeps page headers, footers and page numbers out of the body, so the body's paragraphs
are the CR's paragraphs, one per line as in the official text files. Tables (none so far in
an official release) are read cell by cell, row by row, each cell once (a merged cell is not
repeated for each grid column or row it spans), and so are tables in cells.

A DOCX is a ZIP archive, and a small one can inflate to gigabytes (a zip bomb), of blanks or
of markup: every member is first inflated in bounded chunks, counting what comes out (a
member's declared size is whatever the file says), and the file refused past the limits of
crparse/readers/limits.py. word/document.xml is then read as it inflates (lxml's iterparse),
each element dropped as soon as it has been read, so that memory holds the text, never the
XML tree; the text is held to the input size limit.

Reading costs the same for each element whatever the file declares: an element is dropped only
once no Python object stands for it, so that libxml2 frees it (lxml would otherwise copy into it
every namespace it uses, each URI whole and each looked up among those copied: time was elements
x URI length, and an element's attributes in k namespaces cost k squared); and a namespace URI
longer than MAX_XML_NAMESPACE_URI is refused (the name of every element in it, which lxml builds
for each `.tag`, holds it whole: 200,000 elements in a 100,000-character namespace took 52 s).

The text is what Word shows with tracked changes accepted. A paragraph's text is that of its
runs, at any depth of the wrappers that hold runs in a paragraph (a hyperlink, a tracked
insertion or move to, a smart tag, a simple field, a content control, custom XML, a direction
or bidi override); the runs of a tracked deletion or move from are not read, nor deleted text
and field codes (w:delText, w:instrText: a field shows its result, which is in runs of its
own). A run's text is its w:t, w:tab and w:ptab as a tab, w:cr and a text-wrapping w:br as a
line break, w:noBreakHyphen as "-" (python-docx's `Run.text`, which this reader used to call).
Paragraphs are read in the body, in content controls and custom XML around paragraphs, tables
and cells, and in table cells; a paragraph whose mark is a tracked deletion runs on into the
next one, and a row that is a tracked deletion is not read. What holds text and is not read
(text boxes, footnotes and endnotes, comments, equations, symbols, imported parts, runs in a
wrapper Word does not put there) is counted in a `docx-not-read` warning, never dropped silently;
so is what shows text of other files, which are never opened (a subdocument, not read; a field
such as INCLUDETEXT, whose result as last saved is read). An attached template adds no text but
through AUTOTEXT fields, counted so.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections import Counter
from io import BytesIO

from crparse.errors import RefusedInput
from crparse.limits import describe, max_input
from crparse.nodes import Diagnostic
from crparse.readers.base import Extract
from crparse.readers.limits import (
    CHUNK,
    MAX_XML_NAMESPACE_URI,
    MAX_XML_NAMESPACES,
    Budget,
    max_inflated,
    max_xml_elements,
    size,
)

_MAIN = "word/document.xml"
# Word writes deflate, and stored members; zipfile inflates bzip2 and LZMA members without an
# output bound per read (a 4 KB read can give gigabytes), so those are refused.
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_MAX_MEMBERS = 10_000  # an official release has 30; each member costs an open and a read

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DOCUMENT, _BODY, _P, _R, _T, _BR = (_W + t for t in ("document", "body", "p", "r", "t", "br"))
_TR, _PPR, _RPR, _TRPR = (_W + t for t in ("tr", "pPr", "rPr", "trPr"))
_BR_TYPE = _W + "type"
# The run children that stand for a character, as python-docx's run text reads them.
_RUN_CHARS = {_W + "tab": "\t", _W + "ptab": "\t", _W + "cr": "\n", _W + "noBreakHyphen": "-"}
# What holds runs in a paragraph and shows them; the runs of a deletion are gone once it is accepted.
_INLINE = frozenset(_W + t for t in ("hyperlink", "ins", "moveTo", "smartTag", "fldSimple", "sdt", "sdtContent",
                                     "customXml", "dir", "bdo"))
_GONE = frozenset(_W + t for t in ("del", "moveFrom"))
# What holds paragraphs between the body and them.
_BLOCK = frozenset(_W + t for t in ("sdt", "sdtContent", "customXml", "tbl", "tr", "tc"))
_M_T = "{http://schemas.openxmlformats.org/officeDocument/2006/math}t"
# Elements that stand for text kept elsewhere, or that no run text covers: counted, not read.
_ELSEWHERE = {
    _W + "footnoteReference": "footnote", _W + "endnoteReference": "endnote", _W + "commentReference": "comment",
    _W + "altChunk": "imported part (w:altChunk)", _W + "sym": "symbol character (w:sym)",
}
# Elements that stand for text kept in other files, which are never opened: a master document's
# subdocument was read as nothing, without a word, while an imported part was said (sweep 24).
_OUTSIDE = {_W + "subDoc": "subdocument (w:subDoc)"}
# Fields whose result is another file's text (or a template's, an application's): Word shows the
# result saved in the document until the field is updated, and so does the reader; said, as the
# text's source is elsewhere (sweep 24). INCLUDE is INCLUDETEXT's older name, GLOSSARY AUTOTEXT's.
_FIELDS_OUTSIDE = frozenset(("INCLUDETEXT", "INCLUDE", "LINK", "DDE", "DDEAUTO", "DATABASE", "AUTOTEXT",
                             "AUTOTEXTLIST", "GLOSSARY"))
_FLD_CHAR, _INSTR_TEXT, _FLD_SIMPLE = (_W + t for t in ("fldChar", "instrText", "fldSimple"))
_FLD_CHAR_TYPE, _INSTR = _W + "fldCharType", _W + "instr"
# What an element is to the loop below, looked up once for each element.
_TEXT, _PARAGRAPH, _WRAPPER, _DELETION, _MATH, _NOTE, _THE_BODY, _FIELD, _VANISHED, _RUN = range(10)
# A run's hidden text (its properties' w:vanish): Word shows none, as RTF's \v (sweep 33: read
# into the rules). Set by the run's own properties only, not by a style.
_VANISH, _VAL = _W + "vanish", _W + "val"
_ROLES = {_T: _TEXT, _BR: _TEXT, **dict.fromkeys(_RUN_CHARS, _TEXT), _P: _PARAGRAPH, _VANISH: _VANISHED, _R: _RUN,
          **dict.fromkeys(_INLINE | _BLOCK, _WRAPPER), **dict.fromkeys(_GONE, _DELETION), _M_T: _MATH,
          **dict.fromkeys(_ELSEWHERE, _NOTE), **dict.fromkeys(_OUTSIDE, _NOTE), _BODY: _THE_BODY,
          _FLD_CHAR: _FIELD, _INSTR_TEXT: _FIELD}
_DELETED, _READ = object(), object()  # where a run's text or a paragraph goes, besides a paragraph or a place not read


def read(raw: bytes, path: str | None = None) -> Extract:
    try:
        archive = zipfile.ZipFile(BytesIO(raw))
    except Exception as err:  # noqa: BLE001 - BadZipFile, and struct, Unicode, value errors of damaged archives
        raise RefusedInput(f"cannot read this DOCX file: a broken ZIP archive ({_says(err)})") from None
    with archive:
        main = _main_part(archive)
        _check_members(archive, main)
        texts, diagnostics = _body_texts(archive, main)
        diagnostics += _commented_rules(archive, main)
    lines = "\n".join(texts).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return Extract(format="docx", lines=lines, encoding="utf-8", line_endings="none", diagnostics=diagnostics)


# A comment or processing instruction of the document part: opened, and closed (the part is read
# as it inflates, a chunk at a time; a construct is looked at up to MAX_CONSTRUCT of its bytes).
_OPENERS = re.compile(rb"<!--|<\?")
_CLOSERS = {b"<!--": b"-->", b"<?": b"?>"}
_CHUNK = 2**20
MAX_CONSTRUCT = 2**20


def _commented_rules(archive: zipfile.ZipFile, main: str) -> list[Diagnostic]:
    """A warning for the comments and processing instructions of the document part that hold
    what reads as rules (a rule number at their start or a line's), which Word does not show and
    the reader does not read: they went without a word, where HTML's and Markdown's are said
    (sweep 25). The part is inflated again, a chunk at a time (its size was checked)."""
    from crparse.readers.html import _AFTER_A_WORD, holds_rule

    # What is looked at is held to the input limit in all, as the text read is: the part may inflate
    # to 64 times the file, all of it comments (sweep 26)
    budget = max_input()

    def reads_as_rules(content: bytes, instruction: bool) -> bool:  # an instruction's also after its target
        nonlocal budget
        if budget <= 0:
            return False
        budget -= min(len(content), MAX_CONSTRUCT)
        text = content[:MAX_CONSTRUCT].decode("utf-8", "replace")
        return holds_rule(text) or (instruction and _AFTER_A_WORD.match(text) is not None)

    found = seen = 0
    limit = max_xml_elements()
    pending = b""  # a construct opened in an earlier chunk, or the last bytes that may start one
    with archive.open(main) as member:
        while chunk := member.read(_CHUNK):
            data, at = pending + chunk, 0
            pending = b""
            while (opening := _OPENERS.search(data, at)) is not None:
                seen += 1
                if seen > limit:  # counted as elements are: 36 million empty comments in 1 MB, 26 s (sweep 26)
                    raise RefusedInput(
                        f"cannot read this DOCX file: {main} has more than {limit:,} comments or processing "
                        "instructions, the limit of its XML elements (a decompression bomb?): raise it with "
                        "CRPARSE_MAX_XML_ELEMENTS if the file is genuine")
                closer = _CLOSERS[opening[0]]
                end = data.find(closer, opening.end())
                if end < 0:
                    pending = data[opening.start():opening.start() + MAX_CONSTRUCT]
                    break
                found += reads_as_rules(data[opening.end():end], opening[0] == b"<?")
                at = end + len(closer)
            else:
                pending = data[-3:]  # "<!-" split across chunks
            if len(pending) >= MAX_CONSTRUCT:  # a construct longer than any: looked at as it is
                found += reads_as_rules(pending[len(opening[0]):], opening[0] == b"<?") if opening else 0
                pending = b""
    said = []
    if found:
        said.append(Diagnostic(None, "warning", "docx-not-read", f"not read, {found:,} comment(s) or processing "
                               f"instruction(s) of {main} that hold what reads as rules (a rule number at a line's start)"))
    if budget <= 0:
        said.append(Diagnostic(None, "info", "docx-not-read", f"the comments and processing instructions of {main} "
                               f"past the first {describe(max_input())} of them not looked at for rules"))
    return said


_RELATIONSHIPS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_OFFICE_DOCUMENT = "/officeDocument"  # the end of the relationship type, transitional or strict


def _main_part(archive: zipfile.ZipFile) -> str:
    """The name of the member Word opens as the document: the target of the package's
    officeDocument relationship (`_rels/.rels`), else word/document.xml. A package whose
    relationship names another part was read from a decoy word/document.xml, and the part
    Word shows was left out without a word (sweep 21). Part names are compared as OPC does,
    without regard to case."""
    from lxml import etree

    infos = archive.infolist()
    names = {info.filename.casefold(): info.filename for info in infos}
    rels = names.get("_rels/.rels")
    target = None
    if rels is not None:
        # the part that says which part is the document must be read, or the file refused: a
        # .rels too large, damaged, or there twice (in other letters) fell back to a decoy
        # word/document.xml without a word (sweep 22)
        if sum(info.filename.casefold() == "_rels/.rels" for info in infos) > 1:
            raise RefusedInput("cannot read this DOCX file: _rels/.rels is in the ZIP archive more than once (in these "
                               "letters or others): which part is the document is not known")
        if archive.getinfo(rels).file_size > 2**20:
            raise RefusedInput("cannot read this DOCX file: its _rels/.rels is larger than 1 MiB (Word's are under 1 KB)")
        try:
            root = etree.fromstring(archive.read(rels), etree.XMLParser(resolve_entities=False, load_dtd=False,
                                                                        no_network=True, huge_tree=False))
        except Exception as err:  # noqa: BLE001 - not well-formed, a bad CRC, a truncated member
            raise RefusedInput(f"cannot read this DOCX file: _rels/.rels: {_says(err)}") from None
        target = next((r.get("Target", "") for r in root.iter(_RELATIONSHIPS)
                       if r.get("Type", "").endswith(_OFFICE_DOCUMENT) and r.get("TargetMode") != "External"), None)
    if target:
        part = posixpath.normpath(target.lstrip("/")).casefold()
        if part not in names:
            raise RefusedInput(f"cannot read this DOCX file: its document part, {_printable(target[:100])} "
                               "(named in _rels/.rels), is not in the ZIP archive")
        return names[part]
    return names.get(_MAIN, _MAIN)


# What detection reads of a part to see whether it is a Word document: its root element is in it
_PEEK = 64 * 2**10


def document_part(archive: zipfile.ZipFile) -> str | None:
    """The part the reader reads as the document (_main_part) when the archive is a Word document,
    else None: detection's test, so that it and the reader never disagree (detection looked for
    word/document.xml alone, and refused as "not a DOCX" a package whose _rels/.rels names
    another part, or one holding WORD/DOCUMENT.XML, both read with --format docx: sweep 24).
    The part is Word's when it is named word/document.xml, in any case, or its root element is
    w:document (another Office package names its own part: a workbook's xl/workbook.xml), or is
    not within its first _PEEK bytes, XML so far (the reader reads it, within its limits). A
    package whose _rels/.rels cannot be read is a Word document if it holds word/document.xml:
    the reader then refuses it, saying why. Bounded: _rels/.rels is read as the reader reads it
    (1 MiB at most), and of the part only the first _PEEK bytes, inflated in small reads."""
    try:
        main = _main_part(archive)
    except RefusedInput:
        return next((name for name in archive.NameToInfo if name.casefold() == _MAIN), None)
    if main not in archive.NameToInfo:
        return None
    if main.casefold() == _MAIN or _root(archive, main) in (_DOCUMENT, _UNSEEN):
        return main
    return None


_UNSEEN = ""  # no root element in what was read of a part, and nothing that is not XML


def _root(archive: zipfile.ZipFile, name: str) -> str | None:
    """The name of the root element of the part `name`, or _UNSEEN if its first _PEEK bytes are XML
    without its start; None if they are not XML, or cannot be read within bounds."""
    from lxml import etree

    info = archive.getinfo(name)
    if info.compress_type not in _METHODS or info.flag_bits & 0x1:  # a read of bzip2 or LZMA is unbounded
        return None
    parser = etree.XMLPullParser(events=("start",), resolve_entities=False, load_dtd=False, no_network=True,
                                 huge_tree=False)
    first = b""
    try:
        with archive.open(info) as member:
            for _ in range(_PEEK // 2**14):
                chunk = member.read(2**14)
                if not chunk:
                    break
                first = first or chunk
                parser.feed(chunk)
                for _, element in parser.read_events():
                    return element.tag
            else:
                return _UNSEEN
    except Exception:  # noqa: BLE001 - not XML, a bad CRC, a damaged member: not a document the test sees
        # ... unless it starts as XML does: the part _rels/.rels names is then the reader's to
        # refuse, saying why (an entity bomb in it was "a ZIP archive that is not a DOCX": sweep 25)
        return _UNSEEN if first.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<") else None
    return None


def _check_members(archive: zipfile.ZipFile, main: str = _MAIN) -> None:
    """Inflate every member, in chunks, and refuse the file past the inflate limit (one member
    or all together). All members, not only the one read: a check that depends on which
    parts a reader happens to open breaks the day the reader opens one more."""
    infos = archive.infolist()
    if len(infos) > _MAX_MEMBERS:
        raise RefusedInput(f"cannot read this DOCX file: more than {_MAX_MEMBERS:,} members in the ZIP archive")
    if sum(info.filename.casefold() == main.casefold() for info in infos) > 1:  # zipfile would read the last, silently
        raise RefusedInput(f"cannot read this DOCX file: {_printable(main)} is in the ZIP archive more than once (in "
                           "these letters or others: built by hand, or damaged): which of them Word shows is not known")
    budget = Budget(max_inflated(), "the members of this DOCX")
    for info in infos:
        name = _printable(info.filename)
        if info.compress_type not in _METHODS:
            raise RefusedInput(f"cannot read this DOCX file: {name} is compressed with method {info.compress_type}, not deflate")
        if info.flag_bits & 0x1:  # zipfile's own words for it hold the ZipInfo's repr (sweep 14)
            raise RefusedInput(f"cannot read this DOCX file: {name} is encrypted (a password-protected archive)")
        try:
            with archive.open(info) as member:
                got = 0
                while chunk := member.read(CHUNK):
                    got += len(chunk)
                    budget.take(len(chunk), name, got)
        except RefusedInput:
            raise
        except Exception as err:  # noqa: BLE001 - a bad CRC, a truncated member, an encrypted one
            raise RefusedInput(f"cannot read this DOCX file: {name}: {_says(err)}") from None


class _Declarations:
    """The document part as lxml reads it, its namespace declarations counted on the way, before
    lxml holds a start tag's all at once (see MAX_XML_NAMESPACES): the count is of "xmlns" in
    the bytes, which a document's text mentions hardly ever."""

    def __init__(self, member, shown: str):
        self.member, self.shown, self.count, self.tail = member, shown, 0, b""

    def read(self, size: int = -1) -> bytes:
        data = self.member.read(size)
        self.count += (self.tail + data[:4]).count(b"xmlns") + data.count(b"xmlns")
        self.tail = data[-4:]
        if self.count > MAX_XML_NAMESPACES:
            raise RefusedInput(f"cannot read this DOCX file: {self.shown} declares more than {MAX_XML_NAMESPACES:,} "
                               "XML namespaces (Word declares a few tens): a damaged or made-up file")
        return data


def _body_texts(archive: zipfile.ZipFile, main: str = _MAIN) -> tuple[list[str], list[Diagnostic]]:
    """The text of each paragraph the body shows, in document order, and the diagnostics that
    say what holds text and was not read."""
    from lxml import etree

    shown = _printable(main)
    if main not in archive.NameToInfo:
        raise RefusedInput(f"cannot read this DOCX file: no {shown} in the ZIP archive")
    limit = max_xml_elements()
    # The text is held to the input limit, as the same text in a text file would be: 256 MiB
    # of "aaa" inflate from 250 KB, and the stages after the reader hold text several times over.
    text_limit, text_size = max_input(), 0
    texts: list[str] = []
    pending: dict = {}  # an open w:p -> the pieces of its text so far
    # Where the runs in an open wrapper go (a w:p, _DELETED, or the name of a place not read),
    # and where the paragraphs in an open block go (_READ, _DELETED, or a place): each wrapper
    # is looked up once, however deep the nesting and however many runs it holds.
    inline: dict = {}
    block: dict = {}
    joined: set = set()  # open paragraphs whose mark is a tracked deletion
    carry = ""  # the text of such paragraphs, which the next one read starts with
    unread: Counter = Counter()  # characters not read, by where they are
    elsewhere: Counter = Counter()  # notes, comments, ... by kind
    outside: Counter = Counter()  # subdocuments, fields showing other files' text, by kind
    fields: list = []  # the start of the code of each complex field open, inner last
    vanished: set = set()  # open runs whose text is hidden
    hidden = 0  # the characters of their text
    body = False
    tails: dict = {}  # an open w:t -> the text after each of its children read and dropped
    count = 0
    holder = where = owner = paragraph = None
    events = None
    try:
        with archive.open(main) as member:
            # No entity expansion (a billion laughs), no DTD, nothing from the network; comments
            # and processing instructions are not kept (they would pile up in the tree).
            events = etree.iterparse(
                _Declarations(member, shown), events=("end", "start-ns"), resolve_entities=False, load_dtd=False, no_network=True,
                huge_tree=False, remove_comments=True, remove_pis=True,
            )
            for event, element in events:
                if event == "start-ns":
                    if len(element[1]) > MAX_XML_NAMESPACE_URI:
                        raise RefusedInput(
                            f"cannot read this DOCX file: {shown} declares a namespace URI of {len(element[1]):,} "
                            f"characters, past the limit of {MAX_XML_NAMESPACE_URI:,} (Word's are under 100)"
                        )
                    continue
                count += 1
                if count > limit:
                    raise RefusedInput(
                        f"cannot read this DOCX file: {shown} has more than {limit:,} XML elements, the limit "
                        "(a decompression bomb?): raise it with CRPARSE_MAX_XML_ELEMENTS if the file is genuine"
                    )
                parent = element.getparent()
                if parent is None:  # the root, last: the loop reads on, so that libxml2 sees the rest
                    continue  # (content after it was dropped without a word: sweep 24)
                tag = element.tag
                role = _ROLES.get(tag)
                if role == _TEXT:
                    piece = _run_char(element, tag)
                    if tag == _T and len(element):
                        # An entity reference (of the file's own DTD: never expanded, a billion
                        # laughs) or markup inside w:t: what follows it is text still.
                        piece += "".join(tails.pop(element, ())) + "".join(child.tail or "" for child in element)
                        elsewhere[_IN_TEXT] += len(element)
                    if parent.tag != _R:
                        where = _place(parent.tag) + " (outside a run)"  # Word shows none
                    else:
                        holder = parent.getparent()
                        where = holder if holder.tag == _P else _where(holder, inline, True)
                    if where is _DELETED or not piece:
                        pass
                    elif vanished and parent in vanished:
                        hidden += len(piece)
                    elif type(where) is str:
                        unread[where] += len(piece)
                    else:
                        pending.setdefault(where, []).append(piece)
                        text_size += len(piece)
                        if text_size > text_limit:
                            raise RefusedInput(
                                f"cannot read this DOCX file: its text passes the {size(text_limit)} input limit: "
                                "raise it with CRPARSE_MAX_INPUT if the file is genuine"
                            )
                elif role == _VANISHED:
                    owner = parent.getparent() if parent.tag == _RPR else None
                    if owner is not None and owner.tag == _R and element.get(_VAL, "1") not in ("0", "false", "off"):
                        vanished.add(owner)
                elif role == _RUN:
                    if vanished:
                        vanished.discard(element)
                elif role == _PARAGRAPH:
                    pieces = pending.pop(element, None)
                    text = "".join(pieces) if pieces else ""
                    where = _where(parent, block, False)
                    if where is _READ:
                        if joined and element in joined:
                            joined.discard(element)
                            carry += text
                        else:
                            texts.append(carry + text if carry else text)
                            carry = ""
                    elif type(where) is str and text:
                        unread[where] += len(text)
                    joined.discard(element)
                elif role == _WRAPPER:
                    inline.pop(element, None)
                    block.pop(element, None)
                    if tag == _FLD_SIMPLE:
                        _field(element.get(_INSTR, ""), outside)
                elif role == _DELETION:
                    # In a paragraph mark's properties, the mark is deleted; in a row's, the row.
                    ptag = parent.tag
                    if ptag == _RPR or ptag == _TRPR:
                        owner = parent.getparent()
                        if ptag == _TRPR and owner.tag == _TR:
                            block[owner] = _DELETED
                        elif ptag == _RPR and owner.tag == _PPR:
                            paragraph = owner.getparent()
                            if paragraph is not None and paragraph.tag == _P:
                                joined.add(paragraph)
                elif role == _MATH:
                    if element.text:
                        unread[_PLACES[_M_T]] += len(element.text)
                elif role == _NOTE:
                    if tag in _OUTSIDE:
                        outside[_OUTSIDE[tag]] += 1
                    else:
                        elsewhere[_ELSEWHERE[tag]] += 1
                elif role == _FIELD:
                    # A complex field: its code is in the w:instrText between its begin and its
                    # separate (or end), nested fields' between theirs; its first word names it.
                    if tag == _INSTR_TEXT:
                        if fields and fields[-1] is not None:
                            fields[-1] = (fields[-1] + (element.text or "")).lstrip()[:64]
                    else:
                        kind = element.get(_FLD_CHAR_TYPE)
                        if kind == "begin":
                            fields.append("")
                        elif fields and kind in ("separate", "end"):
                            if fields[-1] is not None:
                                _field(fields[-1], outside)
                                fields[-1] = None  # said: its result follows
                            if kind == "end":
                                fields.pop()
                elif role == _THE_BODY:
                    block.pop(element, None)
                    if _is_body(element):
                        body = True
                # Read: the elements before it in its parent are dropped, with everything in them, so
                # that the tree never grows; it is dropped in turn by the next one, or with its parent.
                # Never itself, now: lxml copies the namespaces an element uses into it when it unlinks
                # one that a Python object stands for (see the docstring above), which is also why no
                # name below still holds an element that has been read.
                # Inside a w:t, the text after each child is the child's tail, which goes with it: it
                # is kept until the w:t is read ("AAA<x/>BBB<y/>CCC" read as "AAACCC", no word of
                # the loss: sweep 20).
                while parent[0] is not element:
                    if parent.tag == _T:
                        tails.setdefault(parent, []).append(parent[0].tail or "")
                    del parent[0]
                holder = where = owner = paragraph = None
    except RefusedInput:
        raise
    except etree.XMLSyntaxError:
        # iterparse's own message can be "no element found (line 0)": its log has the first error.
        first = next(iter(events.error_log), None) if events is not None else None
        where = (f"{_said_by_libxml2(first.message)} (line {first.line}, column {first.column})" if first
                 else "no element in it (empty, or cut off before its first element)")
        raise RefusedInput(f"cannot read this DOCX file: {shown} is not well-formed XML: {where}") from None
    except Exception as err:  # noqa: BLE001 - a damaged member, found while inflating it
        raise RefusedInput(f"cannot read this DOCX file: {shown}: {_says(err)}") from None
    if not body:
        raise RefusedInput(f"cannot read this DOCX file: {shown} has no document body (w:document/w:body)")
    if carry:
        texts.append(carry)
    said = _not_read(unread, elsewhere, outside)
    if hidden:
        said.append(Diagnostic(None, "info", "docx-not-read",
                               f"{hidden:,} characters of hidden text (w:vanish) not read, as Word shows none"))
    return texts, said


def _where(x, memo: dict, runs: bool):
    """Where what `x` holds goes: for runs (`runs`), the w:p they are part of, or _DELETED; for
    paragraphs, _READ when `x` is the body or in it; or else the name of the place, not read.
    The wrappers walked through are remembered in `memo` until they end, so that each is walked
    once."""
    chain = []
    found = memo.get(x)
    while found is None:
        if x is None:
            found = "no paragraph" if runs else "no body"
            break
        tag = x.tag
        if runs and tag == _P:
            found = x
        elif runs and tag in _GONE:
            found = _DELETED
        elif tag in (_INLINE if runs else _BLOCK):
            chain.append(x)
            x = x.getparent()
            found = memo.get(x)
            continue
        elif not runs and tag == _BODY and _is_body(x):
            found = _READ
            chain.append(x)  # the body, remembered until it ends
        else:
            found = _place(tag)
        break
    for wrapper in chain:
        memo[wrapper] = found
    return found


def _is_body(element) -> bool:
    """Whether `element` is the body: w:body directly under the root w:document."""
    root = element.getparent()
    return element.tag == _BODY and root is not None and root.tag == _DOCUMENT and root.getparent() is None


_PLACES = {_W + "txbxContent": "text boxes (w:txbxContent)", _M_T: "equations (m:oMath)",
           _BODY: "w:body (outside a paragraph)"}


def _place(tag: str) -> str:
    """A place text is not read from, as messages name it: w:rt, or a name in another namespace."""
    if tag in _PLACES:
        return _PLACES[tag]
    namespace, _, local = tag.rpartition("}")
    name = _printable(local[:40])
    return f"w:{name}" if namespace + "}" == _W else f"{name} (namespace {_printable(namespace[1:41])})"


_IN_TEXT = "entity reference or element in w:t"
_KINDS = {_IN_TEXT: "entity references or elements in w:t",
          "footnote": "footnotes", "endnote": "endnotes", "comment": "comments",
          "imported part (w:altChunk)": "imported parts (w:altChunk)",
          "symbol character (w:sym)": "symbol characters (w:sym)", "subdocument (w:subDoc)": "subdocuments (w:subDoc)"}


def _field(code: str, outside: Counter) -> None:
    """Count a field whose code is `code` if it shows another file's text."""
    words = code.split(None, 1)
    if words and words[0].upper() in _FIELDS_OUTSIDE:
        outside[f"{words[0].upper()} field"] += 1


def _not_read(unread: Counter, elsewhere: Counter, outside: Counter) -> list[Diagnostic]:
    """One warning for the text not read, by place (the five that hold most of it), one for
    the notes, comments and such that hold text kept elsewhere, one for what stands for text of
    other files."""
    found = []
    if unread:
        places = unread.most_common()
        said = ", ".join(f"{n:,} in {place}" for place, n in places[:5])
        more = f", {sum(n for _, n in places[5:]):,} in {len(places) - 5:,} other places" if len(places) > 5 else ""
        found.append(Diagnostic(None, "warning", "docx-not-read",
                                f"{sum(unread.values()):,} characters of text not read, not being in the body's "
                                f"paragraphs: {said}{more}"))
    if elsewhere:
        said = ", ".join(f"{n:,} {kind if n == 1 else _KINDS[kind]}" for kind, n in elsewhere.most_common())
        found.append(Diagnostic(None, "warning", "docx-not-read", "not read, the text these stand for "
                                f"(kept in another part of the file, or a DTD): {said}"))
    if outside:
        counted = {kind: f"{n:,} {kind if n == 1 else _KINDS.get(kind, kind + 's')}" for kind, n in outside.most_common()}
        subdocuments = counted.pop("subdocument (w:subDoc)", None)
        said = [f"{subdocuments}, not read"] if subdocuments else []
        if counted:
            said.append(f"{', '.join(counted.values())}, read as last saved in this file (as Word shows them "
                        "until they are updated)")
        found.append(Diagnostic(None, "warning", "docx-not-read",
                                f"text of other files, which are never opened: {'; '.join(said)}"))
    return found


def _run_char(element, tag: str) -> str:
    if tag == _T:
        return element.text or ""
    if tag == _BR:  # a page or column break is no character
        return "\n" if element.get(_BR_TYPE, "textWrapping") == "textWrapping" else ""
    return _RUN_CHARS[tag]


def _says(err: BaseException) -> str:
    """An exception as one line of a message: its type when it says nothing more."""
    text = " ".join(str(err).split())
    return _printable(text[:200]) if text else type(err).__name__


def _said_by_libxml2(message: str) -> str:
    """libxml2's message, without the advice meant for a programmer ("use XML_PARSE_HUGE
    option", which a user cannot set: sweep 17)."""
    message = re.sub(r",?\s*use XML_PARSE_HUGE option", "", message).strip()
    if message.startswith("Excessive depth in document"):
        message += " elements nested, more than libxml2 reads (a damaged or hostile file?)"
    return _printable(message)


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)
