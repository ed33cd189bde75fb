"""JS106 stream-max-age-invalid."""

from __future__ import annotations

from collections.abc import Iterator

from jsops.linter import api

from ._common import duration_floor_violations

MIN_MAX_AGE = 100 * api.MILLISECOND


class StreamMaxAgeInvalid(api.StreamRule):
    """A stream's max_age is negative or shorter than 100ms.

    ## What it does
    Checks `max_age`: 0 means unlimited, otherwise it must be at least 100ms.

    ## Why is this bad?
    nats-server refuses to create or update the stream (err_code 10052, "max age can not be
    negative" or "max age needs to be >= 100ms").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 50ms}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Stream
    metadata: {name: ORDERS}
    spec: {subjects: ["orders.>"], max_age: 1h}
    ```

    ## Fix
    Set `max_age` to 100ms or more, or leave it out (0) to keep messages without an age limit.
    A bare integer is read as nanoseconds: write a unit (`max_age: 7d`).
    """

    code = "JS106"
    name = "stream-max-age-invalid"
    severity = api.Severity.ERROR
    bucket_words = True

    def check_stream(
        self, resource: api.StreamResource, cfg: api.StreamConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        return duration_floor_violations(resource, "max_age", cfg.max_age, MIN_MAX_AGE)


RULE = StreamMaxAgeInvalid
