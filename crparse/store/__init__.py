"""The embedded store (SQLite): releases, nodes, references, pairs and lineages of a corpus,
built by `crparse index` (crparse.store.index) and read by history, search, identify and
cite-check --since (crparse.store.query). Schema: crparse.store.db, docs/store.md."""

from crparse.store.db import STORE_VERSION, MissingStore, connect, default_path

__all__ = ["STORE_VERSION", "MissingStore", "connect", "default_path"]
