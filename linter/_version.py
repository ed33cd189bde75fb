"""The jsops version: one home, imported by the package, the CLI and the cache keys."""

__all__ = ["__version__"]

__version__ = "0.1.0"
