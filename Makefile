# Long-Span QA Workbench: the two commands are `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
DB ?= data/workbench.db
PORT ?= 8501

.PHONY: run serve test test-stress lint docs demo embeddings bench clean-demo

# Reinstall only when a requirements file changed (stamp files carry the timestamps).
$(VENV)/.app-installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt $(VENV)/.app-installed
	$(PY) -m pip install --disable-pip-version-check -q -r requirements-dev.txt
	touch $@

# DB as a file to build (a SQLite file, built with the demo when missing; none for a URL)
DB_FILE := $(if $(findstring ://,$(DB)),,$(DB))
ifneq ($(DB_FILE),)
$(DB_FILE): | $(VENV)/.app-installed
	$(PY) -m core --db $(DB) demo
endif

demo: $(VENV)/.app-installed
	$(PY) -m core --db $(DB) demo

run: $(VENV)/.app-installed $(DB_FILE)
	WORKBENCH_DB=$(DB) $(PY) -m streamlit run app.py --server.headless true \
	  --server.address 127.0.0.1 --server.port $(PORT) --browser.gatherUsageStats false

# The team's server: ADDRESS (default 127.0.0.1), HOSTS (the names the team opens it at, spaces
# between) and BASE_URL. Open mode (no accounts) is refused off loopback (docs/team.md).
ADDRESS ?= 127.0.0.1
HOSTS ?=
BASE_URL ?=
# SERVERS=N (N > 1, DB a postgresql:// URL): N servers on 127.0.0.1 ports PORT+1..PORT+N behind a
# local nginx on ADDRESS:PORT with sticky sessions (scripts/serve_cluster.py; Ctrl-C stops all).
SERVERS ?= 1
SERVE_OPTIONS = $(if $(BASE_URL),--base-url $(BASE_URL)) $(foreach h,$(HOSTS),--allowed-host $(h))
serve: $(VENV)/.app-installed
ifeq ($(SERVERS),1)
	$(PY) -m core --db $(DB) serve --address $(ADDRESS) --port $(PORT) $(SERVE_OPTIONS)
else
	$(PY) scripts/serve_cluster.py --db $(DB) --servers $(SERVERS) --address $(ADDRESS) \
	  --port $(PORT) $(SERVE_OPTIONS)
endif

# Two pytest-xdist workers (JOBS, at most the machine's cores): a file's tests stay on one worker,
# all browser tests on one, the longest files first (tests/conftest.py).
JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 2 ] && n=2; echo $$n)
XDIST = -n $(JOBS) --dist loadgroup --no-loadscope-reorder
test: $(VENV)/.dev-installed lint
	$(PY) -m pytest $(XDIST) --durations=15

# The suite as a busy machine and a background job run it: BURNERS CPU burners (stopped on any
# exit) and SIGINT ignored, as `make test &`, nohup and some CI runners start it. PYTEST_ARGS
# picks tests (default: all), e.g. make test-stress PYTEST_ARGS="tests/llm/test_resume.py".
BURNERS ?= 2
PYTEST_ARGS ?=
test-stress: $(VENV)/.dev-installed
	@pids=""; trap 'kill $$pids 2>/dev/null' EXIT INT TERM; \
	for i in $$(seq $(BURNERS)); do yes > /dev/null & pids="$$pids $$!"; done; \
	echo "test-stress: $(BURNERS) CPU burners ($$pids), SIGINT ignored"; \
	(trap '' INT; $(PY) -m pytest -p no:cacheprovider $(XDIST) $(PYTEST_ARGS))

# Layers and cycles (import-linter), lint and format (ruff), mypy --strict over core/, app_support/ and pages/
lint: $(VENV)/.dev-installed
	PYTHONPATH=. $(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# docs/cli.md from every command's --help (tests/test_docs.py checks it is current).
docs: $(VENV)/.app-installed
	$(PY) scripts/cli_reference.py

embeddings: $(VENV)/.app-installed
	$(PY) -m pip install --disable-pip-version-check -q -r requirements-embeddings.txt

bench: $(VENV)/.dev-installed
	for b in benchmarks/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean-demo:
	rm -f $(DB) $(DB)-wal $(DB)-shm
