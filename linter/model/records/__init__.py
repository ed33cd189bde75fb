"""Records: the light config models (:mod:`~jsops.linter.model.records.record`), the pure-Python
validator of plainly valid input (:mod:`~jsops.linter.model.records.checks`), and the pydantic model
made from the same declaration for everything else (:mod:`~jsops.linter.model.records.to_pydantic`).
"""
