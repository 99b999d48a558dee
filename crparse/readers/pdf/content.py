"""The content check: what the pages of a PDF give PDFium to parse, costed from the raw
bytes before PDFium opens the file."""

from __future__ import annotations

import re
from collections.abc import Iterator

from crparse.errors import RefusedInput
from crparse.readers.limits import (
    PDF_CHAR_COST,
    PDF_OBJECT_COST,
    PDF_PAGE_COST,
    Budget,
    max_inflated,
    max_pdf_content,
    max_pdf_stream,
    size,
)
from crparse.readers.pdf.filters import MAX_CHAINS, decode, earlies, value_chains
from crparse.readers.pdf.predictors import unpredicted
from crparse.readers.pdf.streams import BEGIN_IMAGE, StreamAt
from crparse.readers.pdf.syntax import (
    MAX_DEFINITIONS,
    DELIM,
    DELIMITERS,
    NUMBER,
    SEPARATOR,
    SPACE,
    WHITE,
    WS,
    Objects,
    entries_of,
    name_pattern,
    object_number,
    ref_of,
    references,
    unescape,
)

# -- content bombs ----------------------------------------------------------------------------
#
# Each stream under the limit for one, all under the inflate limit, is not enough: PDFium parses
# a page's content streams for each page that shows them (one dense stream shown by 1,000 pages
# is counted once above), and a form's content each time it is drawn ("/Fm1 Do" ten times in a
# form drawn ten times, eight levels deep: 10^8 draws in a 2 KB file, and PDFium aborts the
# process when its memory runs out); then it spends about a microsecond on each character of a
# page's text. So before PDFium opens the file, the page tree is walked from the raw bytes as
# PDFium walks it, and each page costed as PDFium will parse it: its content streams each time
# the page lists them, the forms they draw each time they draw them (a drawing counting as a
# page object), through the nesting PDFium follows. The file is refused as soon as the pages
# together pass the content limit (max_pdf_content), or one page the limit for one stream,
# where a page object and a character count more than their bytes (see limits.py). The page
# objects and characters of each page are known exactly once PDFium has parsed it: they are
# added to the count then, page by page (_lines), so that a document of dense pages is refused
# at the page that passes the limit, not after hours.
#
# Costing a page by its bytes is a scan of its streams' sizes, which the bomb check measured.
# Only a page whose bytes could pass the limit for one page, were each of them a character
# (PDF_CHAR_COST + 1 a byte, the most a byte can cost), has its operators and strings counted
# (`_tally`: a few passes of bytes methods and regular expressions, no loop over characters).
#
# The walk reads objects where PDFium would find them, in the file and in object streams.
# Where its reading could differ from PDFium's, it errs towards a larger cost: every definition
# of a number counts (the largest), every /Root of the file (the one with the most pages), a
# stream's largest decoding; operators and strings are counted on the stream's bytes, comments
# and strings included. If PDFium counts more pages than the walk found, the file is refused
# (_lines): their content was not checked.



_ROOT = re.compile(name_pattern(b"Root") + SPACE + rb"(" + NUMBER + rb")" + SEPARATOR + NUMBER + SEPARATOR + rb"R")


# "Do" and its operand: a name, or a string, which PDFium takes for one ("(Fm1) Do" drew a form
# bomb the walk never counted: sweep 12)
_DRAW = re.compile(
    rb"(?:/([^" + DELIM + rb"]*)|\(([^()\\]*)\)|<([0-9A-Fa-f" + re.escape(WHITE) + rb"]*)>)" + SPACE + rb"Do(?![^" + DELIM + rb"])"
)
# "sh" and its operand, a shading's name. A mesh shading (types 4 to 7) is a stream, which PDFium
# decodes for the shading's bounds each time "sh" paints it: 2,000 "sh" of a 3 MiB mesh, inflated
# from 3 KB, took over 10 s (sweep 17). It decodes a mesh about 16 times as fast as it parses
# content: each painting counts as a 16th of the mesh's inflated size.
_SHADE = re.compile(rb"/([^" + DELIM + rb"]*)" + SPACE + rb"sh(?![^" + DELIM + rb"])")
_MESH = re.compile(name_pattern(b"ShadingType") + SPACE + rb"[4-7](?![0-9.])")
MESH_WEIGHT = 16
# A literal string with no parenthesis inside but escaped ones (nested strings come out one
# level a round), and a hex string or what reads as one.
_LITERAL = re.compile(rb"\([^()\\]*+(?:\\.[^()\\]*+)*+\)", re.S)
_HEX_STRING = re.compile(rb"<[^<>]*>")
# Painting a path makes a page object: S s f F f* B B* b b*, as tokens. Delimiters become
# blanks and these letters \x01, and then " \x01 " and " \x01*" are counted (two painting
# operators in a row paint one path: the second has none, a miss costs nothing).
_PAINTING = bytes.maketrans(DELIMITERS + b"SsfFBb", b" " * len(DELIMITERS) + b"\x01" * 6)
# What else makes one: showing text, drawing an XObject, painting a shading, an inline image.
_MAKES_OBJECT = (b"Tj", b"TJ", b"'", b'"', b"Do", b"sh", b"EI")
SHADING = "shading"  # the first of a (SHADING, name) key among a resources' names
_MAX_PAGE_DEPTH = 1024  # PDFium's kMaxPageLevel: no page deeper in the tree is loaded
_MAX_INHERITED = 4  # different /Resources a page may inherit through its /Parent chain, each costed
_MAX_FORM_DEPTH = 41  # PDFium parses no form inside 40 others (kMaxFormLevel)
_MAX_STRING_ROUNDS = 4
_TYPE3 = re.compile(name_pattern(b"Type3"))
_TO_UNICODE = re.compile(
    name_pattern(b"ToUnicode") + SPACE + rb"(" + NUMBER + rb")" + SEPARATOR + NUMBER + SEPARATOR + rb"R"
)
_HEX_DIGITS = re.compile(rb"<([0-9A-Fa-f" + re.escape(WHITE) + rb"]*)>")
_NOT_HEX_DIGIT = re.compile(rb"[^0-9A-Fa-f]")


def _drawn(match: re.Match) -> bytes:
    """The XObject name a "Do" names."""
    if match[1] is not None:
        return unescape(match[1])
    if match[2] is not None:
        return match[2]
    digits = re.sub(rb"[^0-9A-Fa-f]", b"", match[3])
    return bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode())


def _tally(data: bytes, per_code: int = 1) -> int:
    """The cost of a content stream: its bytes, its operators that make a page object (found
    as substrings: more, never fewer) and the bytes of its strings (`per_code` characters each
    at most: see _Content.per_code)."""
    objects = sum(data.count(op) for op in _MAKES_OBJECT)
    spaced = b" " + data.translate(_PAINTING) + b" "
    objects += spaced.count(b" \x01 ") + spaced.count(b" \x01*")
    chars = 0
    text = data
    for _ in range(_MAX_STRING_ROUNDS):
        before = len(text)
        text, n = _LITERAL.subn(b" ", text)
        chars += before - len(text) - n  # each string's bytes but its parentheses
        if not n or b"(" not in text:
            break
    opened = text.find(b"(")
    if opened >= 0:
        # Nested deeper, or never closed: any string PDFium reads that is not counted yet
        # lies after the first "(" left, up to the end at most.
        chars += len(text) - opened
        text = text[:opened]
    before = len(text)
    text = _HEX_STRING.sub(b"", text)
    chars += (before - len(text)) // 2
    return len(data) + PDF_OBJECT_COST * objects + PDF_CHAR_COST * per_code * chars


_IMAGE_DATA = re.compile(rb"(?<![^" + DELIM + rb"])ID(?:\r\n|" + WS + rb")")  # the data follows one white space
_INLINE_FILTER = re.compile(
    rb"/(?:F|Filter)(?![^" + DELIM + rb"])" + SPACE + rb"(\[(?:%[^\r\n]*+|[^\]%]++)*+\]?|/[^" + DELIM + rb"]*)"
)


def _inline_images(data: bytes, budget: Budget, part: str) -> int:
    """What the inline images of a content stream ("BI <entries> ID <data> EI") inflate to,
    decoded as PDFium decodes them (their filter's own end ends them), a chunk at a time, never
    held; each image held to the limit for one stream, and all of them, of all streams, to the
    inflate limit (`budget`), which bounds the work too. An image's data is read by its
    decoder; the search for the next image goes on after its "ID"."""
    total, at = 0, 0
    while (begin := BEGIN_IMAGE.search(data, at)) is not None:
        at = begin.end()
        if begin.start() and data[begin.start() - 1] not in DELIMITERS:
            continue
        start = _IMAGE_DATA.search(data, at)
        if start is None:
            break
        at = start.end()
        entries = data[begin.end() : start.start()]
        chains = [chain for match in _INLINE_FILTER.finditer(entries)
                  for chain in value_chains(match[1], Objects(b""), depth=0)][:MAX_CHAINS]
        for chain in chains:
            if chain and chain[0] != "other":
                most = 0
                for early in earlies(chain):
                    before = budget.total
                    for _ in decode(data, at, chain, early, budget, part, []):
                        pass
                    most = max(most, budget.total - before)
                total += most
    return total




class _Content:
    """The content the pages of a PDF give PDFium to parse, costed (see above)."""

    def __init__(self, raw: bytes, streams: dict[int, list[StreamAt]], objects: Objects | None = None):
        self.raw = raw
        self.streams = streams
        self.objects = objects or Objects(raw)
        self.page_limit = max_pdf_stream()
        self.limit = max_pdf_content()
        self.steps = 0  # streams costed: a file whose forms draw one another in every way ends
        self.max_steps = max(self.limit // 256, 10_000)
        self.draws: dict[int, dict[bytes, int]] = {}
        self.tallies: dict[int, int] = {}
        self.inlines: dict[int, int] = {}
        self.inline_budget = _stream_budget("the inline images of this PDF")
        self.forms: dict[tuple, int] = {}
        self.xobject_maps: dict[bytes, dict[bytes, list[int]]] = {}
        self.fonts: list[int] = []  # the fonts resources name, in the order met
        self.page_costs: dict[tuple, int] = {}
        self.parsed: dict[int, list[dict[bytes, bytes]]] = {}
        self.kids: dict[tuple, list[tuple[int, bytes | None]]] = {}
        self.merged: dict[tuple[int, int], dict[bytes, list[int]]] = {}  # see _within
        self.inherited: dict[int, list[bytes]] = {}  # page tree node -> the /Resources it has or inherits
        self.packed: list[bytes] = []  # the data of each object stream
        for number, places in streams.items():
            for place in places:
                for i, data in enumerate(place.packed or ()):
                    if data and data not in place.packed[:i]:
                        self.packed.append(data)
                        self.objects.add_object_stream(data, place.first, place.start)
        self.per_code = self._per_code()
        # Fonts matter for their glyphs, if Type3 (see _type3): none named, none noted.
        self.type3 = any(_TYPE3.search(text) for text in [raw, *self.packed])
        # Resources are read for their shadings only where a mesh shading may be
        self.meshes = any(_MESH.search(text) for text in [raw, *self.packed])
        self.shades: dict[int, dict[bytes, int]] = {}

    def _per_code(self) -> int:
        """The most characters PDFium can make of one character code: a ToUnicode map may
        give a code a whole string ("<78> <0041 0041 ...>": 400 characters from one byte
        crashed PDFium), counted in UTF-16 units (the map's own)."""
        most = 1
        refs = {n for text in [self.raw, *self.packed] for m in _TO_UNICODE.finditer(text) if (n := object_number(m[1]))}
        for ref in sorted(refs):
            for data in self._data(ref):
                for digits in _HEX_DIGITS.findall(data):
                    most = max(most, -(-len(_NOT_HEX_DIGIT.sub(b"", digits)) // 4))
        return most

    # -- what the file holds

    def _data(self, number: int) -> list[bytes]:
        """Stream `number` decoded as its own dictionary says (each definition of the number),
        or, where that was not found, in every way the bomb check decoded it and as it is;
        each way is under the limit for one stream, which that check enforced."""
        out: list[bytes] = []
        for place in self.streams.get(number, ())[:MAX_CHAINS]:
            for chain in place.own if place.own is not None else [*place.chains, []]:
                if not chain:  # no filter: the bytes as they are, to the next object (see check_streams)
                    data = self.raw[place.start : place.start + place.size]
                    if data not in out:
                        out.append(data)
                    continue
                if chain[0] == "other":
                    continue
                for early in earlies(chain):
                    budget = _stream_budget("the streams of this PDF")
                    data = b"".join(decode(self.raw, place.start, chain, early, budget, place.part, []))
                    for undone in [data, *(unpredicted(data, p, self.objects) for p in place.predictors or ())]:
                        if undone not in out:
                            out.append(undone)
        return out[: MAX_CHAINS]

    def _size(self, number: int) -> int:
        return max((place.size for place in self.streams.get(number, ())), default=0) + self._inline(number)

    def _inline(self, number: int) -> int:
        """What the inline images of stream `number` inflate to: PDFium decodes them as it
        parses the content (a 6 KB page of one made it abort), each time it does. Each is held
        to the limit for one stream, as a stream is."""
        if number not in self.inlines:
            most = 0
            if any(place.inline for place in self.streams.get(number, ())):
                for data in self._data(number):
                    part = f"an inline image of the stream of object {number}"
                    most = max(most, _inline_images(data, self.inline_budget, part))
            self.inlines[number] = most
        return self.inlines[number]

    def _draws(self, number: int) -> dict[bytes, int]:
        """XObject name -> how many times stream `number` draws it ("/Fm1 Do")."""
        if number not in self.draws:
            draws: dict[bytes, int] = {}
            if any(place.draws for place in self.streams.get(number, ())):
                for data in self._data(number):  # the most of each name any reading draws
                    counted: dict[bytes, int] = {}
                    for match in _DRAW.finditer(data):
                        name = _drawn(match)
                        counted[name] = counted.get(name, 0) + 1
                    for name, times in counted.items():
                        draws[name] = max(draws.get(name, 0), times)
            self.draws[number] = draws
        return self.draws[number]

    def _dicts(self, value: bytes | None) -> list[dict[bytes, bytes]]:
        """The dictionaries a value is: itself, or each definition of the object it refers to."""
        if value is None:
            return []
        value = value.strip()
        if value.startswith(b"<<"):
            entries = entries_of(value)
            return [entries] if entries is not None else []
        ref = ref_of(value)
        return self._object_dicts(ref) if ref is not None else []

    def _object_dicts(self, number: int) -> list[dict[bytes, bytes]]:
        """The dictionary of each definition of object `number` (parsed once)."""
        if number not in self.parsed:
            if self.objects.defined(number) > MAX_DEFINITIONS:
                # only the first 16 are read: decoys before the one the cross-reference table
                # picks hid an 80 MiB page (sweep 14), as they hid a /Filter (sweep 10)
                raise RefusedInput(f"object {number} of this PDF is defined over {MAX_DEFINITIONS} times: which "
                                   "definition PDFium reads cannot be checked for a content bomb")
            self.parsed[number] = [e for text in self.objects.definitions(number) if (e := entries_of(text)) is not None]
        return self.parsed[number]

    def _arrays(self, value: bytes | None) -> list[list[int]]:
        """The objects an array value refers to, in order: itself, or each definition of the
        array object it refers to; a reference to a stream, alone."""
        if value is None:
            return []
        value = value.strip()
        if value.startswith(b"["):
            return [references(value)]
        ref = ref_of(value)
        if ref is None:
            return []
        arrays = [references(text) for text in self.objects.definitions(ref)
                  if text.lstrip().startswith(b"[")]
        return arrays + [[ref]] if ref in self.streams or not arrays else arrays

    def _names(self, value: bytes | None) -> list[bytes]:
        """The name a value is, or the object it refers to is (each definition)."""
        ref = ref_of(value)
        values = self.objects.definitions(ref) if ref is not None else [value or b""]
        return [unescape(v.strip()[1:]) for v in values if v.strip().startswith(b"/")]

    def _xobjects(self, resources: bytes) -> dict[bytes, list[int]]:
        """Name -> the objects it may be, in the /XObject entry of a /Resources value; and
        (SHADING, name) -> the streams it may be, in its /Shading entry (mesh shadings)."""
        if resources not in self.xobject_maps:
            names: dict[bytes, list[int]] = {}
            for entries in self._dicts(resources):
                for xobjects in self._dicts(entries.get(b"XObject")):
                    for name, value in xobjects.items():
                        ref = ref_of(value)
                        if ref is not None and ref not in names.setdefault(name, []):
                            names[name].append(ref)
                for shadings in self._dicts(entries.get(b"Shading")) if self.meshes else ():
                    for name, value in shadings.items():  # (SHADING, name): see _SHADE
                        ref = ref_of(value)
                        if ref is not None and ref in self.streams and ref not in names.setdefault((SHADING, name), []):
                            names[(SHADING, name)].append(ref)
                for fonts in self._dicts(entries.get(b"Font")) if self.type3 else ():  # for their glyphs
                    self.fonts.extend(ref for value in fonts.values() if (ref := ref_of(value)) is not None)
            self.xobject_maps[resources] = names
        return self.xobject_maps[resources]

    # -- costs

    def _stream(self, number: int, xobjects: dict[bytes, list[int]], depth: int, exact: bool) -> int:
        """Parsing content stream `number` once, with what it draws (named in `xobjects`): its
        bytes, or its tally when `exact`; each drawing a page object, and each form drawn."""
        self.steps += 1
        if self.steps > self.max_steps:
            raise RefusedInput(
                f"cannot check this PDF file: its pages and forms show content streams and forms over "
                f"{self.max_steps:,} times (a form bomb, or a page's /Contents naming one stream over and over?), the "
                f"most the {size(self.limit)} content limit allows to check: "
                "raise it with CRPARSE_MAX_PDF_CONTENT if the file is genuine"
            )
        if exact:
            if number not in self.tallies:
                self.tallies[number] = max((_tally(data, self.per_code) for data in self._data(number)), default=0)
            cost = self.tallies[number] + self._inline(number)
        else:
            cost = self._size(number)
        for name, times in self._draws(number).items():
            targets = xobjects.get(name)
            if targets:
                form = max(self._form(target, xobjects, depth - 1, exact) for target in targets)
                cost += times * (PDF_OBJECT_COST + form)
        if self.meshes and any(isinstance(key, tuple) for key in xobjects):
            for name, times in self._shadings(number).items():
                targets = xobjects.get((SHADING, name))
                if targets:
                    cost += times * max(self._size(target) // MESH_WEIGHT for target in targets)
        return cost

    def _shadings(self, number: int) -> dict[bytes, int]:
        """Shading name -> how many times stream `number` paints it ("/Sh1 sh")."""
        if number not in self.shades:
            shades: dict[bytes, int] = {}
            for data in self._data(number):
                counted: dict[bytes, int] = {}
                for match in _SHADE.finditer(data):
                    name = unescape(match[1])
                    counted[name] = counted.get(name, 0) + 1
                for name, times in counted.items():
                    shades[name] = max(shades.get(name, 0), times)
            self.shades[number] = shades
        return self.shades[number]

    def _form(self, number: int, outer: dict[bytes, list[int]], depth: int, exact: bool) -> int:
        """Drawing XObject `number` once: parsing it, if it is a form, with what it draws,
        `depth` levels of forms deep at most. A form without resources of its own uses those
        of what draws it, as in PDFium; of several definitions, the costliest."""
        if depth <= 0:
            return 0
        definitions = self._object_dicts(number)
        if not any(b"Form" in self._names(entries.get(b"Subtype")) for entries in definitions):
            return 0  # an image, or nothing PDFium draws
        options = [self._within(self._xobjects(e[b"Resources"]), outer) if b"Resources" in e else outer
                   for e in definitions]
        cost = 0
        for xobjects in {id(x): x for x in options}.values():
            key = (number, id(xobjects), depth, exact)
            if key not in self.forms:
                self.forms[key] = self._stream(number, xobjects, depth, exact)
            cost = max(cost, self.forms[key])
        return cost

    def _within(self, own: dict[bytes, list[int]], outer: dict[bytes, list[int]]) -> dict[bytes, list[int]]:
        """The names a form's content may draw: those of its own resources, then, for a name
        they lack, those of what draws it: PDFium looks a name up in the page's resources when
        the form's have none (FindResourceHolder; a form whose /Resources had no /XObject drew
        2 GiB unseen: sweep 14). Made once for each pair, so that forms are costed once."""
        if not outer or own is outer:
            return own
        key = (id(own), id(outer))
        if key not in self.merged:
            self.merged[key] = {**outer, **own}
        return self.merged[key]

    def _page(self, number: int, inherited: bytes | None, exact: bool) -> int:
        """Parsing page `number` (its costliest definition): its content streams in order, each
        time they are listed, with what they draw."""
        key = (number, inherited, exact)
        if key not in self.page_costs:
            cost = 0
            for entries in self._object_dicts(number):
                # PDFium looks for inherited /Resources up the page's /Parent entries, which
                # need not be the nodes that list it (a /Parent outside the tree gave a page
                # 10^6 drawings unseen: sweep 13): both are costed
                if b"Resources" in entries:
                    options = [entries[b"Resources"]]
                else:
                    options = list(dict.fromkeys([inherited, *self._parents_resources(entries.get(b"Parent"))]))
                for streams in self._arrays(entries.get(b"Contents")):
                    for resources in options:
                        # The resources are read when they matter: for what the page draws, or the
                        # fonts, when the file has Type3 fonts.
                        needed = resources is not None and (self.type3 or self.meshes or any(self._draws(s) for s in streams))
                        xobjects = self._xobjects(resources) if needed else {}
                        cost = max(cost, sum(self._stream(s, xobjects, _MAX_FORM_DEPTH, exact) for s in streams))
            self.page_costs[key] = PDF_PAGE_COST + cost
        return self.page_costs[key]

    def _parents_resources(self, parent: bytes | None) -> list[bytes]:
        """The /Resources a page inherits through its /Parent entry, as PDFium's GetPageAttr
        looks for them: those of the nearest node up the chain that has them (each definition
        of each node followed; a node met again on the way gives none). Known per node, so that
        each node is read once however many pages share the chain."""
        top = ref_of(parent)
        if top is None:
            return []
        memo = self.inherited
        stack = [(top, False)]
        while stack:
            node, expanded = stack.pop()
            if not expanded:
                if node in memo:
                    continue
                memo[node] = []  # a cycle back to it finds nothing
                stack.append((node, True))
                for entries in self._object_dicts(node):
                    up = ref_of(entries.get(b"Parent")) if b"Resources" not in entries else None
                    if up is not None and up not in memo:
                        stack.append((up, False))
                continue
            found: list[bytes] = []
            for entries in self._object_dicts(node):
                if b"Resources" in entries:
                    found.append(entries[b"Resources"])
                else:
                    up = ref_of(entries.get(b"Parent"))
                    found.extend(memo.get(up, ()) if up is not None else ())
            memo[node] = list(dict.fromkeys(found))[:_MAX_INHERITED]
        return memo[top]

    def _tree(self, root: int) -> tuple[int, int]:
        """(cost, pages) of the page tree at `root`, walked as PDFium walks it: the kids of
        each node in order, a node already on the way down skipped (a cycle), none below
        _MAX_PAGE_DEPTH; a page listed twice counts twice. Every node visited costs as much as
        a page, so that the walk ends within the limit whatever the shape of the tree."""
        cost = pages = 0
        path: list[int] = []  # the nodes on the way down, each with an iterator of its kids
        on_path: set[int] = set()
        below: list[Iterator[tuple[int, bytes | None]]] = [iter([(root, None)])]
        while below:
            step = next(below[-1], None)
            if step is None:  # done with the node's kids
                below.pop()
                if path:
                    on_path.discard(path.pop())
                continue
            node, inherited = step
            if node in on_path or len(below) > _MAX_PAGE_DEPTH:
                continue
            definitions = self._object_dicts(node)
            if any(b"Kids" in entries for entries in definitions):
                cost += PDF_PAGE_COST
                path.append(node)
                on_path.add(node)
                below.append(iter(self._kids(node, inherited)))
            elif definitions:
                pages += 1
                page = self._page(node, inherited, exact=False)
                if page * (1 + PDF_CHAR_COST * self.per_code) > self.page_limit:
                    whole = self._page(node, inherited, exact=True)
                    if whole > self.page_limit:
                        raise RefusedInput(
                            f"page {pages} of this PDF (object {node}) draws {size(whole)} of content, past the "
                            f"{size(self.page_limit)} limit for one page (PDFium holds a page's content whole; a page "
                            f"object counts {PDF_OBJECT_COST} bytes, a character {PDF_CHAR_COST}, a form each time it "
                            f"is drawn, a mesh shading 1/{MESH_WEIGHT} of its size each time it is painted): raise it "
                            "with CRPARSE_MAX_PDF_STREAM if the file is genuine"
                        )
                cost += page
            if cost > self.limit:
                raise content_refusal(self.limit, pages)
        return cost, pages

    def _kids(self, node: int, inherited: bytes | None) -> list[tuple[int, bytes | None]]:
        """The kids of page tree node `node` (of each definition), each with the resources it
        inherits."""
        key = (node, inherited)
        if key not in self.kids:
            self.kids[key] = [
                (kid, entries.get(b"Resources", inherited))
                for entries in self._object_dicts(node) if b"Kids" in entries
                for kid_list in self._arrays(entries[b"Kids"]) for kid in kid_list
            ]
        return self.kids[key]

    def check(self) -> tuple[int, int]:
        """Refuse the file if a page's content, or all pages' together, passes its limit; the
        cost and number of pages of the root with the most pages."""
        roots: dict[int, None] = {}  # in the order found; a dict: 65,000 roots in a list took 43 s to compare
        for match in _ROOT.finditer(self.raw):
            number = object_number(match[1])
            for catalog in self._object_dicts(number) if number else ():
                pages = ref_of(catalog.get(b"Pages"))
                if pages is not None:
                    roots.setdefault(pages)
        # The first and the last found: PDFium takes the root of the last trailer, an update
        # appended to the file; a file of thousands of catalogs is walked no more than this.
        found = list(roots)
        walked = found if len(found) <= MAX_CHAINS else found[:MAX_CHAINS // 2] + found[-(MAX_CHAINS // 2):]
        most = (0, 0)
        for root in walked:
            cost, pages = self._tree(root)
            most = max(most, (cost, pages), key=lambda found: (found[1], found[0]))
        glyphs = self._type3()
        if most[0] + glyphs > self.limit:
            raise content_refusal(self.limit, most[1])
        return most[0] + glyphs, most[1]

    def _type3(self) -> int:
        """The glyphs of the Type3 fonts the resources name: each glyph is a content stream,
        which PDFium parses (once for the document: it keeps them) the first time a page shows
        it, with the forms it draws; all of them count, in the limit for one page too (PDFium
        holds them all). The fonts named in a Type3 font's own resources count as well."""
        cost, done, at = 0, set(), 0
        while at < len(self.fonts):  # _xobjects adds the fonts of the resources it reads
            font = self.fonts[at]
            at += 1
            if font in done:
                continue
            done.add(font)
            for entries in self._object_dicts(font):
                if b"Type3" not in self._names(entries.get(b"Subtype")):
                    continue
                if b"Resources" in entries:
                    options = [self._xobjects(entries[b"Resources"])]
                else:  # those of the page (or form) that shows it: any of them
                    options = list(self.xobject_maps.values()) or [{}]
                procs = [ref for d in self._dicts(entries.get(b"CharProcs")) for v in d.values()
                         if (ref := ref_of(v)) is not None]
                cost += max(sum(self._stream(p, x, _MAX_FORM_DEPTH, exact=True) + PDF_OBJECT_COST for p in procs)
                            for x in options)
                if cost > self.page_limit:
                    raise RefusedInput(
                        f"the Type3 fonts of this PDF draw {size(cost)} of content in their glyphs, past the "
                        f"{size(self.page_limit)} limit for one page (PDFium holds them all; a page object counts "
                        f"{PDF_OBJECT_COST} bytes, a character {PDF_CHAR_COST}, a form each time it is drawn): "
                        "raise it with CRPARSE_MAX_PDF_STREAM if the file is genuine"
                    )
        return cost


def _stream_budget(parts: str) -> Budget:
    return Budget(max_inflated(), parts, max_pdf_stream(), "CRPARSE_MAX_PDF_STREAM")


def content_refusal(limit: int, page: int) -> RefusedInput:
    return RefusedInput(
        f"the pages of this PDF draw more than the {size(limit)} limit of content, at page {page} (a page counts "
        f"{size(PDF_PAGE_COST)}, a stream each time a page shows it, a form each time it is drawn, a mesh shading "
        f"1/{MESH_WEIGHT} of its size each time it is painted, a page object {PDF_OBJECT_COST} bytes, a character "
        f"{PDF_CHAR_COST}): raise it with CRPARSE_MAX_PDF_CONTENT if the file is genuine"
    )


def check_content(raw: bytes, streams: dict[int, list[StreamAt]], objects: Objects | None = None) -> tuple[int, int]:
    """Refuse the file if the content its pages draw passes the limits (see _Content); what
    they cost before PDFium parses them, and how many there are."""
    return _Content(raw, streams, objects).check()
