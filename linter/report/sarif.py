"""``--format sarif``: SARIF 2.1.0, as GitHub code scanning reads it (upload-sarif)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from urllib.parse import quote

from ..docs import RuleInfo
from ..findings import Finding
from ..result import LintResult
from .jsontext import dumps_indented

__all__ = ["render_sarif", "SARIF_SCHEMA", "INFORMATION_URI"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/jsops/jsops"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _uri(file: str) -> str:
    if file.startswith("nats://"):  # a live object (jsops audit): the pseudo-path is a URI already
        return "nats://" + quote(file[len("nats://") :])
    if os.path.isabs(file):
        return "file://" + quote(file.replace(os.sep, "/"))
    return quote(file.replace(os.sep, "/"))


def _fingerprint(f: Finding) -> str:
    # Stable across line moves and runs: rule, file, object and message (without a drift's author,
    # whose age changes with each run), not the position.
    obj = str(f.object) if f.object else ""
    return hashlib.sha256(f"{f.rule}\0{f.file}\0{obj}\0{f.lasting_message}".encode()).hexdigest()[:32]


def _rule(info: RuleInfo) -> dict[str, object]:
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.summary},
        "help": {"text": info.doc or info.summary, "markdown": info.doc or info.summary},
        "defaultConfiguration": {"level": _LEVEL[info.severity]},
        "properties": {"tags": sorted(info.groups)},
        **({"helpUri": info.url} if info.url else {}),
    }


def render_sarif(result: LintResult, version: str, rules: Sequence[RuleInfo]) -> str:
    known = {r.code: r for r in rules}
    used = sorted({f.rule for f in result.findings})
    index = {code: i for i, code in enumerate(used)}
    driver_rules = [
        _rule(known[c]) if c in known else {"id": c, "defaultConfiguration": {"level": "error"}} for c in used
    ]
    results = []
    for f in result.findings:
        res: dict[str, object] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": _LEVEL[f.severity.value],
            "message": {"text": f.message + (f" (fix: {f.fix.description})" if f.fix else "")},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.file)},
                        # no region for a finding without a position (a live object, named by its pseudo-path)
                        **({"region": {"startLine": f.line, "startColumn": f.column}} if f.line else {}),
                    }
                }
            ],
            "partialFingerprints": {"jsopsFinding/v1": _fingerprint(f)},
        }
        props: dict[str, object] = {}
        if f.object is not None:
            props["object"] = f.object.as_dict()
        if f.server_error_code is not None:
            props["server_error_code"] = f.server_error_code
            props["server_answer"] = f.server_answer  # the one err_code the server answers for the object
        if f.fix is not None:
            props["fix"] = f.fix.as_dict()
        props.update(f.author_json())  # a drift finding's author (jsops audit, JS520), as the JSON report has it
        if props:
            res["properties"] = props
        results.append(res)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "jsops",
                        "version": version,
                        "semanticVersion": version,
                        "informationUri": INFORMATION_URI,
                        "rules": driver_rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return dumps_indented(doc) + "\n"
