# Two commands matter: `make serve` (set up, build, serve at http://127.0.0.1:8000)
# and `make test` (set up, run every test). Everything is installed from pinned files.

SHELL := /bin/bash
export NO_MKDOCS_2_WARNING := 1
VENV := .venv
PY := $(VENV)/bin/python
# Python 3.13, so the build, the tests and the browser's Pyodide run the same Python.
PYTHON313 ?= $(shell for candidate in python3.13 $$HOME/.pyenv/versions/3.13*/bin/python3.13 /usr/local/bin/python3.13 /usr/bin/python3.13; do \
	$$candidate -c 'import sys; assert sys.version_info[:2] == (3, 13)' >/dev/null 2>&1 && { echo $$candidate; break; }; done)
RULES_DATA := rules_core/data/systems.json
CONTENT := $(shell find content -type f 2>/dev/null)
RULES_CORE_SOURCES := $(shell find rules_core -name '*.py' -not -path '*/__pycache__/*' 2>/dev/null)
PYODIDE_BUNDLE := build/pyodide
# Reproducible builds: the sitemap's dates are the last commit's, not the build's.
export SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 315532800)
SW_TEMPLATE := build/sw-template.js

.PHONY: setup data seam build serve test test-fast test-browser lint bench clean

$(VENV)/.installed: requirements.txt
	@test -n "$(PYTHON313)" || { echo "Python 3.13 is needed (python3.13 on PATH or under ~/.pyenv)" >&2; exit 1; }
	$(PYTHON313) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip==26.3
	$(PY) -m pip install --quiet --requirement requirements.txt
	cp requirements.txt $@  # its bytes say what is installed (hooks/package/made_from.py)

setup: $(VENV)/.installed data seam node_modules/.package-lock.json $(PYODIDE_BUNDLE)/rules_core.snapshot \
		$(SW_TEMPLATE)

# System rules are data in content/; the rules core reads them compiled to JSON.
# The schema is compiled beside the data, and its effect vocabulary is rules_core.rules.attack.
$(RULES_DATA): $(VENV)/.installed $(CONTENT) hooks/content/rules_data.py hooks/content/rules_schema.py \
		rules_core/rules/attack.py
	$(PY) -m hooks.content.rules_data $@

data: $(RULES_DATA)

# What the page's JavaScript reads of the rules core (the worker's request and answer as
# types/rules-core-web.d.ts, the limits both sides share as
# docs/assets/javascripts/rules-core-limits.mjs), written from the Python. Both are
# committed; a file that already holds it is left untouched (tests/test_browser_seam.py
# fails where a committed one is stale).
seam: $(VENV)/.installed
	$(PY) -m hooks.package.browser_seam

# The Pyodide runtime, rollup (to minify the service worker) and axe-core, pinned in
# package-lock.json; the site serves Pyodide itself (no CDN). Not `npm ci`: the lock holds only
# the optional native packages of rollup that the registry here serves (its Linux builds, not
# the other platforms), and `npm ci` refuses a lock without every platform's entry.
# `npm install` takes the locked versions all the same.
node_modules/.package-lock.json: package-lock.json package.json
	npm install --no-audit --no-fund
	touch $@

# Pyodide's runtime files, the standard library cut to what the calculators import (found
# by running them in Node, as the worker runs them), the compiled rules_core wheel and a
# snapshot of Python with them loaded, served as the indexURL. The snapshot is the target:
# the dev server's quick rebuild of the wheel drops it, so the next setup makes it anew.
# A minute's work, done again only when the bytes of its inputs changed, not their dates
# (a branch switch rewrites files as they were): hooks/package/made_from.py.
$(PYODIDE_BUNDLE)/rules_core.snapshot: $(VENV)/.installed node_modules/.package-lock.json $(RULES_DATA) \
		$(RULES_CORE_SOURCES) pyproject.toml hooks/package/pyodide_bundle.py \
		hooks/package/bundle_tools.py hooks/package/bundle_archives.py hooks/package/stdlib_cut.py \
		hooks/package/rules_core_wheel.py \
		hooks/package/trace_imports.mjs hooks/package/make_snapshot.mjs hooks/package/node_python.mjs \
		docs/assets/javascripts/calculator-worker.mjs docs/assets/javascripts/python-bundle.mjs \
		docs/assets/javascripts/python-snapshot.mjs hooks/package/made_from.py
	@$(PY) -m hooks.package.made_from $@ $^ -- $(PY) -m hooks.package.pyodide_bundle $(PYODIDE_BUNDLE)

# The service worker, minified once; each build fills in its file list.
$(SW_TEMPLATE): node_modules/.package-lock.json hooks/package/service_worker.mjs \
		hooks/package/service_worker_template.mjs
	node hooks/package/service_worker.mjs bundle $@

# The build ends with sw.js (hooks/package/offline.py); the zip is the whole site to download.
build: setup
	$(VENV)/bin/mkdocs build --strict --site-dir site
	$(PY) -m hooks.package.offline site dist/open-rules-reference-site.zip

# --dirty: a save renders only the pages it changed; hooks/mkdocs_hooks.py tells which.
serve: setup
	$(VENV)/bin/mkdocs serve --dirty --dev-addr 127.0.0.1:8000

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy --strict rules_core hooks
	node_modules/.bin/tsc -p tsconfig.json
	node_modules/.bin/tsc -p hooks/package/tsconfig.json

# pytest runs on TEST_WORKERS processes at once (pytest-xdist; `make test TEST_WORKERS=1`
# runs one): a test often waits, for Chromium, a build or a server, and a third worker's
# tests use that time (a whole run kept both cores of a 2-core machine 96% busy: the suite's
# time is its CPU). worksteal: a worker that is done takes tests queued for another. The
# site is built once for the run (tests/conftest.py, built_once).
TEST_WORKERS ?= 3

# node --test runs as many test files at once as the machine has cores (each file is a
# process of its own; its default, a core fewer, runs them one at a time on 2 cores).

test: setup lint
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal
	node --test --test-concurrency=$$(nproc) tests/node/

# The same tests in two tiers, which CI runs side by side (.github/workflows/ci.yml): the
# fast one answers a content or code change in a few minutes, the browser one drives
# Chromium. Together they are `make test` (every test is in exactly one pytest tier).
test-fast: setup lint
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal -m "unit or site"
	node --test --test-concurrency=$$(nproc) tests/node/

test-browser: setup
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal -m browser

bench: build
	$(PY) benchmarks/bench_dice.py
	$(PY) benchmarks/bench_core.py
	$(PY) benchmarks/bench_build.py
	$(PY) benchmarks/bench_calculators.py
	$(PY) benchmarks/bench_embed.py
	$(PY) benchmarks/bench_busy_device.py
	$(PY) benchmarks/bench_search.py
	$(PY) benchmarks/bench_lighthouse.py
	$(PY) benchmarks/bench_serve.py
	node benchmarks/bench_fight.mjs
	node benchmarks/bench_snapshot.mjs

clean:
	rm -rf site build dist $(RULES_DATA) .pytest_cache .ruff_cache
