"""Every ``jsops audit`` rule is declared one way (``@register``), so the config's ``audit`` mapping
takes the comparisons (JS520-JS522 drift, JS530 upgrade defaults) as it takes the state checks:
by code or name, a severity or off, bad options refused the way ``rules:`` refuses them."""

from __future__ import annotations

import re

import pytest

from jsops.linter import Estate, Severity
from jsops.linter.config import Config, ConfigError
from jsops.linter.engine import discover_rules
from jsops.linter.load import load_text
from jsops.reconciler.audit.registry import select_live
from jsops.reconciler.audit.run import audit_result

from .test_audit_unit import state_of, stream_info

MANIFEST = b"""apiVersion: jsops/v1
kind: Stream
metadata: {name: DECLARED}
spec: {subjects: [declared.>], storage: file}
"""


def _codes(settings: dict[str, dict[str, str]]) -> dict[str, Severity]:
    manifests = Estate()
    load_text(MANIFEST, "declared.yaml", manifests)
    state = state_of([stream_info("UNDECLARED")])  # on the server, in no manifest (JS521); DECLARED is missing (JS522)
    result = audit_result(state, Config(), discover_rules(), select_live(settings), manifests=manifests)
    return {f.rule: f.severity for f in result.findings if f.rule in ("JS521", "JS522")}


def test_comparisons_take_severity_and_off_by_code_or_name() -> None:
    assert _codes({}) == {"JS521": Severity.WARNING, "JS522": Severity.WARNING}
    assert _codes({"JS521": {"severity": "off"}, "live-missing": {"severity": "info"}}) == {"JS522": Severity.INFO}


@pytest.mark.parametrize(
    "settings,message",
    [
        ({"JS530": {"severity": "loud"}}, "audit.JS530.severity: one of error, warning, info, off"),
        ({"live-drift": {"treshold": 1}}, "audit.live-drift.treshold: unknown option (JS520 options: none, severity)"),
    ],
)
def test_bad_comparison_settings_are_config_errors(settings: dict[str, dict[str, object]], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        select_live(settings)
