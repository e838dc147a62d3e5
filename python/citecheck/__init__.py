"""citecheck: checks citations against the sources they cite (docs/python.md)."""

__version__ = "0.0.0.dev0"
