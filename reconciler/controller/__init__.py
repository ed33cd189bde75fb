"""``jsops controller``: keep the targets equal to the manifests, round after round.

- :mod:`~jsops.reconciler.controller.cli`: the command line (entry point ``main``);
- :mod:`~jsops.reconciler.controller.loop`: the rounds (:class:`~jsops.reconciler.controller.loop.Controller`);
- :mod:`~jsops.reconciler.controller.target`: one target's round (connect, read, plan, apply);
- :mod:`~jsops.reconciler.controller.source`: the manifests (a directory, or a git branch:
  :mod:`~jsops.reconciler.controller.git`); :mod:`~jsops.reconciler.controller.policy`: what the
  annotations allow; :mod:`~jsops.reconciler.controller.lease`: one applier per target;
- :mod:`~jsops.reconciler.controller.endpoints`: ``/healthz``, ``/readyz``, ``/metrics``
  (:mod:`~jsops.reconciler.controller.metrics`); :mod:`~jsops.reconciler.controller.events`: the event log.
"""
