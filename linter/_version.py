"""The jsops version: one home, imported by the package, the CLI and the cache keys.

The version comes from git tags (setuptools-scm writes ``linter/_scm_version.py`` when jsops is
built or installed): a tagged commit ``v0.2.0`` is ``0.2.0``, an untagged one ``0.2.1.devN+g<commit>``
(N commits after the last tag). A tree that was never built or installed, or an archive without
git metadata, says ``0.0.0`` (setuptools-scm's fallback) and names no commit.
"""

__all__ = ["__version__", "__commit__", "version_line"]

try:
    from ._scm_version import __commit__ as _node
    from ._scm_version import __version__ as __version__
except ImportError:  # a source tree that was never built or installed
    __version__ = "0.0.0"
    _node = "None"

# setuptools-scm's node is "g<sha>" for git ("None" without one); the commit is named by 12 hex digits
__commit__: str | None = _node[1:13] if _node.startswith("g") and len(_node) > 1 else None


def version_line() -> str:
    """What ``jsops --version`` prints: the version and the commit it was built from."""
    return f"jsops {__version__}" + (f" (commit {__commit__})" if __commit__ else "")
