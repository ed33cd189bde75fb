# jsops developer entry points. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
DEMO_TRAFFIC_SECONDS ?= 60

.PHONY: install demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[dev,spark]"
	@touch $(STAMP)

install: $(STAMP)

## demo: set up, then the whole story on embedded defaults: a local nats-server, apply the example
## estate, real traffic collected with `jsops collect`, profiled on local Spark, lint with the profiles,
## fix + plan + apply, the plan empty, the HTML report (.demo/report.html); stops all it started
demo: install
	$(PY) -m reconciler.demo --workdir .demo --traffic-seconds $(DEMO_TRAFFIC_SECONDS)

## test: set up if needed, then run the whole suite (unit + integration against real nats-server)
test: install
	$(VENV)/bin/pytest -q

bench: install
	$(PY) bench/lint_speed.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .demo
