"""A Sphinx extension of the sites `crparse docs` builds: the scripts the site writes beside its
pages (OUT/versions.js, OUT/<release>/lineage.js) are linked without Sphinx's `?v=<crc32>`.

Sphinx adds to each script's link the checksum of the file it finds in the output directory as
it writes the page. These two are written by crparse, not Sphinx, and change when a release is
added while the other releases' pages are left as built: so a page built while they existed got
a checksum of whatever an earlier run left there (read whole: a 1.2 GiB file planted at
versions.js was), a page built from nothing got none, and a site rebuilt with --force differed
from one built afresh. Without it, a page is the same whatever the directory held before.
"""

from __future__ import annotations

import os
import posixpath


def _plain_links(app, pagename, templatename, context, doctree) -> None:
    tag = context.get("js_tag")
    pathto = context.get("pathto")
    if tag is None or pathto is None:
        return

    def js_tag(js) -> str:
        name = os.fspath(getattr(js, "filename", None) or "")
        attributes = getattr(js, "attributes", None) or {}
        # a script outside _static/ is one the site writes itself (see above)
        if name and "://" not in name and not posixpath.normpath(name).startswith("_static/") and not attributes:
            return f'<script src="{pathto(name, resource=True)}"></script>'
        return tag(js)

    context["js_tag"] = js_tag


def setup(app) -> dict:
    app.connect("html-page-context", _plain_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
