"""JS219 consumer-sample-freq-invalid."""

from __future__ import annotations

import re
from collections.abc import Iterator

from jsops.linter import api

_ATOI = re.compile(r"[+-]?[0-9]+")
_INT64_MAX = (1 << 63) - 1


class ConsumerSampleFreqInvalid(api.ConsumerRule):
    """A consumer's sample_freq is not a whole, non-negative percentage.

    ## What it does
    Parses `sample_freq` the way nats-server does: one trailing `%` is removed and the rest must be
    a decimal integer (Go `strconv.Atoi`) that is not negative. Values above 100 are accepted.

    ## Why is this bad?
    nats-server refuses to create the consumer (err_code 10095, "failed to parse consumer sampling
    configuration").

    ## Example
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {sample_freq: "12.5%"}
    ```

    ## Use instead
    ```yaml
    apiVersion: jsops/v1
    kind: Consumer
    metadata: {name: shipper, stream: ORDERS}
    spec: {sample_freq: "12%"}
    ```

    ## Fix
    Unsafe: write a whole percentage from 0 to 100, like `"10%"`.
    """

    code = "JS219"
    name = "consumer-sample-freq-invalid"
    severity = api.Severity.ERROR
    fix_availability = api.FixAvailability.ALWAYS

    def check_consumer(
        self, resource: api.ConsumerResource, cfg: api.ConsumerConfig, ctx: api.RuleContext
    ) -> Iterator[api.Violation]:
        value = cfg.sample_freq
        if not value:
            return
        text = value[:-1] if value.endswith("%") else value
        if _ATOI.fullmatch(text) is not None:
            n = int(text)
            if 0 <= n <= _INT64_MAX:
                return
        yield api.Violation(
            resource,
            ("sample_freq",),
            f"sample_freq {value!r} is not a whole, non-negative percentage; nats-server rejects this consumer",
            server_error_code=api.ErrCode.CONSUMER_INVALID_SAMPLING,
            fix=api.FixSuggestion.unsafe('write a whole percentage like "10%"'),
        )


RULE = ConsumerSampleFreqInvalid
