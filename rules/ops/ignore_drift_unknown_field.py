"""JS447 ops-ignore-drift-unknown-field."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from jsops.linter.api import (
    DOCUMENT,
    IGNORE_DRIFT,
    FixAvailability,
    FixSuggestion,
    Resource,
    Rule,
    RuleContext,
    Severity,
    Violation,
    holdable_fields,
    ignore_drift_fields,
    unheld_fields,
)


class OpsIgnoreDriftUnknownField(Rule):
    """A `jsops.io/ignore-drift` annotation names a field the object cannot leave to another owner.

    ## What it does
    Reads the fields the `jsops.io/ignore-drift` annotation of a stream or consumer names (separated
    by commas or spaces, optionally in brackets) and reports each one that `jsops plan`, `jsops
    apply`, `jsops audit` and the controller will not keep at its live value: a field the object's
    kind does not have (a typo, a consumer field on a stream, a bucket's own name such as `ttl` for
    the stream's `max_age`), a name field (`name`, `durable_name`) or `metadata`. The message
    suggests the closest field of the kind. The check is jsops's own: nats-server never sees the
    annotation, so the finding carries no err_code.

    ## Why is this bad?
    A field jsops does not recognise is left out of the annotation without a word. The field the
    team meant to leave to an application is then reconciled as usual: every plan shows the
    application's value as drift, and the controller heals it, fighting the application until it
    quarantines the field (docs/drift.md).

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata:
      name: ORDERS
      annotations: {jsops.io/ignore-drift: "[num_replica]"}
    spec: {subjects: ["orders.>"], num_replicas: 3}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata:
      name: ORDERS
      annotations: {jsops.io/ignore-drift: "[num_replicas]"}
    spec: {subjects: ["orders.>"], num_replicas: 3}
    ```

    ## Fix
    No automatic fix. Rename the field to the one the message suggests, or remove it from the
    annotation.
    """

    code = "JS447"
    name = "ops-ignore-drift-unknown-field"
    severity = Severity.WARNING
    fix_availability = FixAvailability.ALWAYS
    bucket_words = True  # the message names the stream's fields itself

    def check(self, resource: Resource, ctx: RuleContext) -> Iterator[Violation]:
        value = resource.annotations.get(IGNORE_DRIFT) if resource.annotations else None
        for name in unheld_fields(resource.kind, ignore_drift_fields(value)):
            reason, meant, advice = _why(resource, name)
            yield Violation(
                resource,
                (DOCUMENT, "metadata", "annotations", IGNORE_DRIFT),
                f"{IGNORE_DRIFT} names {name!r}: {reason}, so jsops does not leave it to another owner "
                f"(plan, apply and the controller reconcile it as usual){meant}",
                fix=FixSuggestion.unsafe(advice),
            )


def _why(resource: Resource, name: str) -> tuple[str, str, str]:
    """Why the field is not held, the did-you-mean that ends the message, and what to do instead."""
    kind = resource.kind.lower()
    fields = holdable_fields(resource.kind)
    if name in ("name", "durable_name", "metadata"):
        return f"the {kind}'s {name} is never held", "", f"remove {name} from {IGNORE_DRIFT}"
    if resource.bucket is not None:  # the stream of a bucket: the annotation names the stream's fields
        meant = [f for f in fields if f != name and resource.word(f) == name]
        if meant:
            return (
                f"{name} is the bucket's word, the annotation names the stream's fields",
                f"; did you mean {meant[0]}?",
                f"write {meant[0]}",
            )
    other = "consumer" if resource.kind == "Stream" else "stream"
    if name in holdable_fields(other.capitalize()):
        return f"{name} is a {other} field", "", f"move it to the {other}'s annotation or remove it"
    close = difflib.get_close_matches(name, fields, n=1, cutoff=0.6)
    if close:
        return f"a {kind} has no field {name}", f"; did you mean {close[0]}?", f"rename it to {close[0]}"
    return f"a {kind} has no field {name}", "", f"remove {name} from {IGNORE_DRIFT}"


RULE = OpsIgnoreDriftUnknownField
