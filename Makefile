# jsops developer entry points. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: install demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[dev,spark]"
	@touch $(STAMP)

install: $(STAMP)

## demo: set up, then lint the example estate in manifests/ (the main job on embedded defaults)
demo: install
	@echo "== jsops lint manifests/ (example online-shop estate)"
	$(VENV)/bin/jsops lint manifests
	@echo "== the same as JSON (summary)"
	@$(VENV)/bin/jsops lint manifests --format json | $(PY) -c "import json,sys; print(json.load(sys.stdin)['summary'])"

## test: set up if needed, then run the whole suite (unit + integration against real nats-server)
test: install
	$(VENV)/bin/pytest -q

bench: install
	$(PY) bench/lint_speed.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
