"""The reconciler modules a ``max_age`` change walks through, from the YAML to the server request (issue 34).

Against a real nats-server: one stream is applied (``max_age: 1h``), every module is imported and each
command run once (so that only code that runs is counted, not modules being imported), then the
manifest is edited to ``max_age: 2h`` and ``jsops plan`` and ``jsops apply --yes`` are run under
``sys.setprofile``: every Python function called is seen, and the ``jsops.reconciler.*`` modules whose
code ran are listed per command, with the union (target: at most 10), and apart from the modules every
command passes through (the CLI, the client, the renderers: marked without ``*``).

    .venv/bin/python bench/max_age_walk.py [--calls]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # tests/natsserver.py imports its neighbours as top-level modules

from jsops.reconciler.cli.commands import apply_main, plan_main  # noqa: E402
from tests.natsserver import NatsServer  # noqa: E402

PREFIX = "jsops.reconciler"
MANIFEST = """apiVersion: jsops/v1
kind: Stream
metadata: {{name: ORDERS}}
spec: {{subjects: ["orders.>"], max_age: {age}}}
"""


def quiet(fn: Callable[[Sequence[str]], int], argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = fn(argv)
    return rc, out.getvalue() + err.getvalue()


def walked(fn: Callable[[Sequence[str]], int], argv: list[str]) -> tuple[int, str, Counter[str]]:
    """Run ``fn(argv)`` under a profile hook: the calls per ``jsops.reconciler`` module whose code ran."""
    seen: Counter[str] = Counter()

    def hook(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            name = frame.f_globals.get("__name__", "")
            if isinstance(name, str) and (name == PREFIX or name.startswith(PREFIX + ".")):
                seen[name] += 1

    sys.setprofile(hook)
    try:
        rc, out = quiet(fn, argv)
    finally:
        sys.setprofile(None)
    return rc, out, seen


EDGES = (f"{PREFIX}.cli.", f"{PREFIX}.client.", f"{PREFIX}.render_")
"""The command line, the connection and the renderers: what every command passes through, whatever it changes."""


def report(what: str, seen: Counter[str], calls: bool) -> None:
    inner = sorted(n for n in seen if not n.startswith(EDGES))
    print(f"{what}: {len(seen)} reconciler modules, {len(inner)} without the CLI, client and renderers")
    for name in sorted(seen):
        edge = "    " if name.startswith(EDGES) else "  * "
        print(f"{edge}{name}" + (f"  ({seen[name]} calls)" if calls else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", action="store_true", help="show the calls counted per module")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, NatsServer() as server:
        os.environ["JSOPS_CACHE_DIR"] = str(Path(tmp) / "cache")
        d = Path(tmp) / "estate"
        d.mkdir()
        manifest = d / "orders.yaml"
        manifest.write_text(MANIFEST.format(age="1h"))
        base = [str(d), "--server", server.url]
        rc, out = quiet(apply_main, [*base, "--yes"])
        assert rc == 0, out
        rc, out = quiet(plan_main, base)  # everything plan imports, imported before the walk
        assert rc == 0 and "No changes." in out, out
        manifest.write_text(MANIFEST.format(age="2h"))
        union: Counter[str] = Counter()
        for command, fn, argv in (("plan", plan_main, base), ("apply --yes", apply_main, [*base, "--yes"])):
            rc, out, seen = walked(fn, argv)
            assert rc == 0 and "ORDERS" in out, out
            union.update(seen)
            report(f"jsops {command}", seen, args.calls)
        rc, out = quiet(plan_main, base)
        assert rc == 0 and "No changes." in out, out  # the change reached the server
        report("plan + apply", union, False)
        print("target: at most 10 (issue 34)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
