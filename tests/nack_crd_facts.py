"""Derive jsops's NACK CRD facts (``linter/load/nack_crds.json``) from NACK's own CRDs.

NACK publishes its CustomResourceDefinitions in ``deploy/crds.yml`` of https://github.com/nats-io/nack.
jsops does not ship that file: this script reads it at each release tag of a local clone and writes
the compact table the loader checks NACK files with (:mod:`jsops.linter.load.nack_crd`): for each
release (tag and commit), for each kind, the version kube-apiserver serves and, per field path,
what kube-apiserver enforces (type, enum, pattern, minimum/maximum, lengths, item counts, required,
``nullable``, ``x-kubernetes-preserve-unknown-fields``, a map's value schema). Descriptions, printer
columns and defaults are left out (defaults never refuse anything). A schema keyword this script does
not know stops it: a new NACK CRD that uses one (``oneOf``, CEL rules) must be looked at, not
silently validated less.

Paths: ``spec.sources[]`` is every item of the list ``spec.sources``; ``spec.metadata{}`` every value
of the map ``spec.metadata``. The root (``apiVersion``, ``kind``, ``metadata``) is kube-apiserver's own
and not in the table.

Run (a clone or the bare git directory of nats-io/nack)::

    python tests/nack_crd_facts.py --git-dir /path/to/nack.git v0.22.4 v0.22.3 ... > linter/load/nack_crds.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from typing import Any

import yaml

CRD_FILE = "deploy/crds.yml"
SOURCE = "https://github.com/nats-io/nack"

# The schema keywords kube-apiserver enforces on a value, as the table names them.
_ENFORCED = (
    "type",
    "enum",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "required",
    "nullable",
    "format",
)
_PRESERVE = "x-kubernetes-preserve-unknown-fields"
# Keywords with no effect on what is refused (documentation, defaulting, printing).
_IGNORED = ("description", "default", "example", "title")
_STRUCTURE = ("properties", "items", "additionalProperties")


def schema_facts(
    schema: dict[str, Any], path: str = "", out: dict[str, dict[str, Any]] | None = None
) -> dict[str, dict[str, Any]]:
    """Path -> the enforced facts of every node of an openAPIV3Schema (``path`` '' is the root)."""
    out = {} if out is None else out
    unknown = set(schema) - set(_ENFORCED) - set(_IGNORED) - set(_STRUCTURE) - {_PRESERVE}
    if unknown:
        raise SystemExit(f"{path or 'the root'}: schema keywords this script does not know: {sorted(unknown)}")
    facts: dict[str, Any] = {k: schema[k] for k in _ENFORCED if k in schema}
    if schema.get(_PRESERVE):
        facts["preserve"] = True
    if "required" in facts:
        facts["required"] = sorted(facts["required"])
    out[path] = facts
    for name, sub in (schema.get("properties") or {}).items():
        schema_facts(sub, f"{path}.{name}" if path else name, out)
    if isinstance(schema.get("items"), dict):
        schema_facts(schema["items"], f"{path}[]", out)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        schema_facts(extra, f"{path}{{}}", out)
    elif extra is False or extra is True:
        facts["additionalProperties"] = extra
    return out


def release_facts(text: str) -> dict[str, dict[str, Any]]:
    """Kind -> ``{"served": version or None, "schema": path facts}`` from one ``crds.yml``."""
    kinds: dict[str, dict[str, Any]] = {}
    for doc in yaml.safe_load_all(text):
        if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
            continue
        spec = doc["spec"]
        if spec["group"] != "jetstream.nats.io":
            raise SystemExit(f"unexpected CRD group {spec['group']!r}")
        served = [v for v in spec["versions"] if v.get("served")]
        if len(served) > 1:
            raise SystemExit(f"{spec['names']['kind']}: more than one served version; the table holds one")
        entry: dict[str, Any] = {"served": None, "schema": None}
        if served:
            entry = {"served": served[0]["name"], "schema": schema_facts(served[0]["schema"]["openAPIV3Schema"])}
        kinds[spec["names"]["kind"]] = entry
    return kinds


def build(git_dir: str, tags: list[str]) -> dict[str, Any]:
    """The whole table for ``tags`` (newest first), kind schemas shared between releases by content."""
    schemas: dict[str, dict[str, Any]] = {}
    by_digest: dict[str, str] = {}
    releases: dict[str, Any] = {}
    for tag in sorted(tags, key=_version_key):  # oldest first: a schema is named after the first release with it
        commit = _git(git_dir, "rev-list", "-n1", tag).strip()
        text = _git(git_dir, "show", f"{commit}:{CRD_FILE}")
        kinds: dict[str, Any] = {}
        for kind, entry in sorted(release_facts(text).items()):
            ref = None
            if entry["schema"] is not None:
                digest = hashlib.sha256(json.dumps([kind, entry["schema"]], sort_keys=True).encode()).hexdigest()
                ref = by_digest.setdefault(digest, f"{kind}@{tag}")
                schemas.setdefault(ref, entry["schema"])
            kinds[kind] = {"served": entry["served"], "schema": ref}
        releases[tag] = {"commit": commit, "kinds": kinds}
    return {
        "about": "What kube-apiserver enforces on NACK resources, per NACK release: derived from deploy/crds.yml by tests/nack_crd_facts.py; do not edit.",
        "source": SOURCE,
        "file": CRD_FILE,
        "releases": {tag: releases[tag] for tag in sorted(releases, key=_version_key, reverse=True)},
        "schemas": dict(sorted(schemas.items())),
    }


def _version_key(tag: str) -> tuple[int, ...]:
    return tuple(int(p) for p in tag.lstrip("v").split("."))


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, text=True, check=True).stdout


def dump(table: dict[str, Any]) -> str:
    """The table as committed: one schema path per line, so a new NACK release reads as a small diff."""
    lines = ["{"]
    for i, (key, value) in enumerate(table.items()):
        comma = "," if i < len(table) - 1 else ""
        if key in ("releases", "schemas"):
            lines.append(f"  {json.dumps(key)}: {{")
            for j, (name, inner) in enumerate(value.items()):
                inner_comma = "," if j < len(value) - 1 else ""
                if key == "schemas":
                    lines.append(f"    {json.dumps(name)}: {{")
                    for k, (path, facts) in enumerate(inner.items()):
                        lines.append(
                            f"      {json.dumps(path)}: {json.dumps(facts, sort_keys=True)}{',' if k < len(inner) - 1 else ''}"
                        )
                    lines.append(f"    }}{inner_comma}")
                else:
                    lines.append(f"    {json.dumps(name)}: {json.dumps(inner, sort_keys=True)}{inner_comma}")
            lines.append(f"  }}{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", required=True, help="the git directory of a nats-io/nack clone")
    parser.add_argument("tags", nargs="+", help="NACK release tags (v0.22.4 ...)")
    args = parser.parse_args(argv)
    sys.stdout.write(dump(build(args.git_dir, args.tags)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
