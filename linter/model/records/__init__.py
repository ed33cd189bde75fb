"""Records: the light config models. From the bottom up: a record's declaration
(:mod:`~jsops.linter.model.records.declaration`: fields, settings, ``RecordBase``), the pure-Python
validator of plainly valid input (:mod:`~jsops.linter.model.records.checks`, nested records included),
the pydantic model made from the same declaration for everything else
(:mod:`~jsops.linter.model.records.to_pydantic`), and the ``Record`` class that runs them
(:mod:`~jsops.linter.model.records.record`). Each imports only those below it.
"""
