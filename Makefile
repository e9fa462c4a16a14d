# TF Lab: `make run` starts the dashboard, `make test` runs every test tier.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8501
CHROMIUM ?= /usr/bin/chromium
# the browser tests and benches read it (tests/browser/conftest.py): make test CHROMIUM=...
export CHROMIUM
# make class: the address HAProxy listens on (default: the network) and how many server
# processes it spreads the browsers over (default: one per core, TFLAB_CLASS_PROCESSES).
CLASS_HOST ?= 0.0.0.0
CLASS_PROCESSES ?=
# make test-load: spinners (default: one per core), their hard time bound in seconds,
# how many whole runs in a row must pass, and optional pytest arguments.
LOAD_CORES ?= $(shell nproc)
LOAD_MAX_S ?= $(shell expr 5400 \* $(LOAD_RUNS))
LOAD_RUNS ?= 1
PYTEST_ARGS ?=
# make test / test-fast: pytest workers (pytest-xdist), one per core, at most 4. Each
# worker takes whole test files (--dist loadfile), so a module's shared run, page or
# server is built once; TEST_WORKERS=0 runs everything in this one process.
TEST_WORKERS ?= $(shell n=$$(nproc); [ $$n -gt 4 ] && n=4; echo $$n)
XDIST := -n $(TEST_WORKERS) --dist loadfile

.PHONY: install run class proxy test-class test test-fast test-load test-unit test-app test-browser browser canvas code-editor cli-help clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

install: $(STAMP)

run: install
	$(PY) -m streamlit run app.py --server.address 127.0.0.1 --server.port $(PORT)

# The class setup (docs/classroom.md): one server process per core behind HAProxy on
# CLASS_HOST:PORT, with cookie affinity; Ctrl-C stops it all.
class: install proxy
	$(PY) -m ui.serve class --host $(CLASS_HOST) --port $(PORT) \
	  $(if $(CLASS_PROCESSES),--processes $(CLASS_PROCESSES))

# HAProxy, from the distribution's packages: installed when missing and we are root.
proxy:
	@command -v haproxy >/dev/null 2>&1 || test -x /usr/sbin/haproxy || { \
	  if [ "$$(id -u)" = "0" ]; then apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy; \
	  else echo "The class setup needs HAProxy: sudo apt-get install haproxy"; exit 1; fi; }

# Browser tests drive Debian's chromium; install it when missing and we are root.
browser:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = "0" ]; then apt-get update -qq && apt-get install -y -qq chromium; \
	  else echo "Browser tests need $(CHROMIUM): sudo apt-get install chromium"; exit 1; fi; }

test: install browser proxy
	$(PY) -m pytest $(XDIST) $(PYTEST_ARGS)

# The class setup in a browser alone (tests/browser/test_class_browser.py: two process
# groups behind HAProxy over one workspace); make test runs it with the rest.
test-class: install browser proxy
	$(PY) -m pytest -m class_browser tests/browser/test_class_browser.py $(PYTEST_ARGS)

# The inner loop: unit and AppTest tiers, no browser.
test-fast: install proxy
	$(PY) -m pytest $(XDIST) tests/unit tests/app $(PYTEST_ARGS)

# The whole suite, with make test's workers, while a CPU hog keeps every core busy
# (tests/load/cpu_hog.py stops its spinners when pytest ends, however it ends). Exits
# with pytest's status.
# `make test-load LOAD_RUNS=3` must pass three times in a row.
test-load: install browser proxy
	$(PY) tests/load/cpu_hog.py --cores $(LOAD_CORES) --max-seconds $(LOAD_MAX_S) -- \
	  sh -c 'for i in $$(seq $(LOAD_RUNS)); do echo "== test-load: run $$i of $(LOAD_RUNS)"; \
	    $(PY) -m pytest $(XDIST) $(PYTEST_ARGS) || exit $$?; done'

test-unit: install proxy
	$(PY) -m pytest tests/unit

test-app: install
	$(PY) -m pytest tests/app

test-browser: install browser proxy
	$(PY) -m pytest tests/browser

# The model canvas's frontend, the one target that needs node and npm (dist/ is committed, so
# nothing else here does): the locked packages, lint (eslint, React hooks rules, no
# warnings), then dist/ and dist/source-hash.txt (tests/unit/test_canvas_build.py checks it).
canvas:
	cd ui/canvas/frontend && npm ci && npm run lint && npm run build

# The Custom code page's editor (CodeMirror 6), built the same way into ui/custom/frontend/dist
# (tests/unit/test_code_editor_build.py checks its source hash).
code-editor:
	cd ui/custom/frontend && npm ci && npm run build

clean:
	rm -rf $(VENV) .pytest_cache
