"""The reconciler's command lines: ``jsops plan``, ``apply`` and ``export``
(:mod:`~jsops.reconciler.cli.commands`), the plans they make (:mod:`~jsops.reconciler.cli.plans`) and
apply (:mod:`~jsops.reconciler.cli.apply`), ``jsops discover`` (:mod:`~jsops.reconciler.cli.discover`),
and the guard every reconciler command runs under (:mod:`~jsops.reconciler.cli.guard`).

Nothing of the reconciler's core (plan, apply, live, client) imports this package.
"""
