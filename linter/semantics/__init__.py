"""Server semantics: what nats-server does with a config, in one package.

Modules (import the one you need; this package imports none of them, so it stays cheap):

* :mod:`.catalog` -- every config field declared once: unit, default, update class, release, NACK and
  bucket names (bottom-layer data, like units: the model may import it);
* :mod:`.units` -- every duration and size parse and format, in each dialect's spelling;
* :mod:`.effective` -- the config nats-server stores for a manifest (defaults, normalisations);
* :mod:`.updates` -- what an update can change in place (update classes);
* :mod:`.releases` -- per-release facts (field versions, checks and err_codes by release);
* :mod:`.subjects` -- subject grammar, overlap and a subject index;
* :mod:`.transforms` -- subject-mapping validation;
* :mod:`.monitor` -- ``io.nats.monitor.*`` metadata keys and jsops operational annotations;
* :mod:`.refusals` -- what the server refuses of a create given the estate (the lint rules' and the plan's);
* :mod:`.limits` -- the fixed limits nats-server checks configs against (name, description and
  metadata lengths, replicas).
"""

__all__: list[str] = []
