"""Lineage across a corpus of releases: a stable identity for every rule, through every
renumbering, split and merge (crparse.lineage.chain), and the history of one rule."""

from crparse.lineage.chain import Lineage, Lineages, Release, Step, chain, link

__all__ = ["Lineage", "Lineages", "Release", "Step", "chain", "link"]
