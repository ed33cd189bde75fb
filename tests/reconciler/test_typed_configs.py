"""No config travels as ``dict[str, Any]`` between the loader and an apply request (issue 23): planning,
the diff, the losses, authorizing, saving and applying a plan hand typed records
(:mod:`jsops.reconciler.configs`) to each other. The server's JSON exists only at the edges: read in
:func:`~jsops.linter.from_api_json` (``LiveStream.from_json``, a saved plan) and written by
:func:`~jsops.reconciler.configs.config_json` (a request, a plan's JSON)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "reconciler"
# the path of a config from the loader to a request (the edges that read or write JSON are elsewhere)
ON_THE_WAY = [
    *sorted((ROOT / "plan").glob("*.py")),
    *(
        ROOT / f
        for f in (
            "diff.py",
            "apply.py",
            "saved.py",
            "readback.py",
            "dataloss.py",
            "interestloss.py",
            "permissions.py",
            "server_apis.py",
            "configs.py",
        )
    ),
]
UNTYPED = re.compile(r"\b(config|cfg|desired|live_cfg|new|final|want)\w*: (dict|Mapping)\[str, Any\]")
READ_BY_KEY = re.compile(r"\.config(\.get\(|\[)")


def test_no_config_is_a_dict_on_its_way_to_the_server() -> None:
    found = [
        f"{p.relative_to(ROOT.parent)}:{i}: {line.strip()}"
        for p in ON_THE_WAY
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if UNTYPED.search(line)
    ]
    assert found == []


def test_no_config_field_is_read_by_its_json_key() -> None:
    found = [
        f"{p.relative_to(ROOT.parent)}:{i}: {line.strip()}"
        for p in ON_THE_WAY
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if READ_BY_KEY.search(line)
    ]
    assert found == []
