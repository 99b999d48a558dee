"""`crparse docs`: static HTML sites of releases, built with Sphinx and the `crparse.sphinx` extension.

`build_site(paths, out)`: one release gives its site in OUT; several give a site per release
under OUT/<date>/ with a version switcher, each rule's history and a change page per
consecutive pair (crparse.site.corpus).
"""

from crparse.site.corpus import Report, build_site
from crparse.site.release import SiteError, build_release

__all__ = ["Report", "SiteError", "build_release", "build_site"]
