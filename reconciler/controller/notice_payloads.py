"""A notice as a receiver reads it: the request body and headers of each format.

- ``webhook``: a JSON object ``{"id", "type", "time", "source", "controller", "context", "subject",
  "summary", "data"}``;
- ``slack``: an incoming-webhook message, ``text`` (the summary) and ``blocks`` (a section with the
  summary, a context line with the type, target, controller and id), ``&``, ``<`` and ``>`` escaped;
- ``cloudevents``: a CloudEvent 1.0 in structured mode (``application/cloudevents+json``): ``id``,
  ``source`` (``/jsops/controller``, then the estate when the config names one), ``type``
  (``io.jsops.controller.`` and the notice type), ``time``, ``subject``, ``datacontenttype`` and
  ``data``, with the extensions ``jsopscontroller`` (the controller's identity) and ``jsopscontext``.

Every format also sends the notice id in an ``Idempotency-Key`` header, the same on each retry.
"""

from __future__ import annotations

import json
from typing import Any, Literal
from urllib.parse import quote

from .notice_events import Notice

__all__ = ["FORMATS", "Format", "payload"]

Format = Literal["webhook", "slack", "cloudevents"]
FORMATS: tuple[Format, ...] = ("webhook", "slack", "cloudevents")
CLOUDEVENTS_TYPE_PREFIX = "io.jsops.controller."


def _source(estate: str | None) -> str:
    return "/jsops/controller" + (f"/{quote(estate, safe='')}" if estate else "")


def _webhook(n: Notice, identity: str, estate: str | None) -> dict[str, Any]:
    return {
        "id": n.id,
        "type": n.type,
        "time": n.time,
        "source": _source(estate),
        "controller": identity,
        "context": n.context,
        "subject": n.subject,
        "summary": n.summary,
        "data": n.data,
    }


def _escape(text: str) -> str:
    """Slack's mrkdwn control characters as its entities."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack(n: Notice, identity: str, estate: str | None) -> dict[str, Any]:
    where = [f"`{n.type}`"]
    if n.context:
        where.append(f"target `{_escape(n.context)}`")
    where += [f"controller `{_escape(identity)}`", f"id `{n.id}`"]
    text = f"jsops: {n.summary}"
    return {
        "text": _escape(text),
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": _escape(text)[:3000]}},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": " · ".join(where)}]},
        ],
    }


def _cloudevent(n: Notice, identity: str, estate: str | None) -> dict[str, Any]:
    event: dict[str, Any] = {
        "specversion": "1.0",
        "id": n.id,
        "source": _source(estate),
        "type": CLOUDEVENTS_TYPE_PREFIX + n.type,
        "time": n.time,
        "datacontenttype": "application/json",
        "jsopscontroller": identity,
    }
    if n.subject or n.context:
        event["subject"] = n.subject or n.context
    if n.context:
        event["jsopscontext"] = n.context
    event["data"] = {"summary": n.summary, **n.data}
    return event


_CONTENT_TYPES = {
    "webhook": "application/json",
    "slack": "application/json",
    "cloudevents": "application/cloudevents+json",
}
_BUILDERS = {"webhook": _webhook, "slack": _slack, "cloudevents": _cloudevent}


def payload(n: Notice, fmt: Format, *, identity: str, estate: str | None = None) -> tuple[bytes, dict[str, str]]:
    """The body and headers of one notice in ``fmt``."""
    body = json.dumps(_BUILDERS[fmt](n, identity, estate), separators=(",", ":"), sort_keys=False).encode()
    return body, {
        "Content-Type": f"{_CONTENT_TYPES[fmt]}; charset=utf-8",
        "Idempotency-Key": n.id,
        "User-Agent": "jsops-controller",
    }
