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
	@echo "== synthetic telemetry (contract wire shapes) -> jsops profile on local Spark"
	@rm -rf .demo && mkdir -p .demo
	$(PY) -m profiler.synthetic .demo/telemetry --acks 20000 --publish-ids 5000
	$(VENV)/bin/jsops profile .demo/telemetry -o .demo/profiles.json --master "local[2]"
	@$(PY) -c "import json; p=json.load(open('.demo/profiles.json')); [print(f\"  {k}: ack_time p99 {v['ack_time_ns']['p99']/1e6:.0f} ms over {v['ack_time_ns']['samples']} samples\") for k, v in sorted(p['consumers'].items()) if 'ack_time_ns' in v]"

## test: set up if needed, then run the whole suite (unit + integration against real nats-server)
test: install
	$(VENV)/bin/pytest -q

bench: install
	$(PY) bench/lint_speed.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .demo
