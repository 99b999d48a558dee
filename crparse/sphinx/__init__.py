"""A Sphinx extension: the `cr` domain, `.. cr:release::`, `:cr:rule:` and `:cr:term:`.

In a Sphinx project's conf.py::

    extensions = ["crparse.sphinx"]

then render a release (``.. cr:release:: MagicCompRules.txt``, or one page of it with
``:page: 704``) and cite it from anywhere (``:cr:rule:`704.5k```, ``:cr:term:`Mana Value```).
A project that does not render the rules itself cites a site built by `crparse docs` through
intersphinx (``intersphinx_mapping = {"cr": ("https://.../", None)}``). See docs/sphinx.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import crparse

STATIC = Path(__file__).parent / "static"


def setup(app) -> dict[str, Any]:
    from crparse.sphinx.domain import CRDomain

    app.add_domain(CRDomain)
    app.connect("builder-inited", _static)
    app.add_css_file("crparse.css")
    return {"version": crparse.__version__, "env_version": 1,
            "parallel_read_safe": True, "parallel_write_safe": True}


def _static(app) -> None:
    if str(STATIC) not in app.config.html_static_path:
        app.config.html_static_path.append(str(STATIC))
