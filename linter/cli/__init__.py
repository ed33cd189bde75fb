"""The jsops command line: the ``jsops`` command and its built-in commands, and the kit every command
of every package builds its parser with and runs under.

- :mod:`~jsops.linter.cli.app`: the ``jsops`` console script (commands, help, dispatch to the
  ``jsops.commands`` entry points);
- :mod:`~jsops.linter.cli.kit`: ``Parser``, the shared ``add_*`` flags, ``run`` (errors to one line and an
  exit code); the reconciler's and the profiler's commands use it too;
- :mod:`~jsops.linter.cli.lint`: ``jsops lint`` and ``jsops rule``; :mod:`~jsops.linter.cli.render`:
  ``jsops render``; :mod:`~jsops.linter.cli.report`: ``jsops report``;
  :mod:`~jsops.linter.cli.completion`: ``jsops completion``.

The linter's core (loading, rules, reporters) never imports this package (the ``linter-layers``
contract in pyproject.toml): it is a library first, and this is one of its users.
"""
