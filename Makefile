# Zyla developer entry points. Everything runs inside the local virtual environment .venv,
# which is created on first use and re-installed whenever pyproject.toml changes.

PYTHON3    ?= python3
VENV       := .venv
PY         := $(VENV)/bin/python
ZYLA       := $(CURDIR)/$(VENV)/bin/zyla
STAMP      := $(VENV)/.zyla-installed
ACCEPTANCE ?= ../shared/acceptance/run

.PHONY: all setup run test lint bench clean

all: test

setup: $(STAMP)

$(PY):
	$(PYTHON3) -m venv $(VENV)

# The stamp records the last successful install; it is redone when pyproject.toml is newer.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(ZYLA) run examples/train_mlp.jl

# the suite runs in parallel processes (pytest-xdist), one per core up to 4, in PARTS
# consecutive runs with fresh processes (a test process keeps the runtimes its tests make:
# tests/parts.py); every part runs, and the target fails if one of them failed
PARTS ?= 4
test: $(STAMP)
	$(VENV)/bin/lint-imports
	@failed=""; for k in $$(seq 1 $(PARTS)); do \
		echo "--- tests, part $$k of $(PARTS)"; \
		$(PY) -m pytest -q -n auto --maxprocesses=4 --dist worksteal $$($(PY) tests/parts.py $$k $(PARTS)) \
			|| failed="$$failed $$k"; \
	done; \
	if [ -n "$$failed" ]; then echo "tests failed in part(s):$$failed"; exit 1; fi
	@if [ -f "$(ACCEPTANCE)" ]; then \
		bash "$(ACCEPTANCE)" --xfail tests/acceptance_xfail.txt "$(ZYLA)"; \
	else \
		echo "acceptance suite not found at $(ACCEPTANCE); skipped"; \
	fi

# ruff, and the import contracts of pyproject.toml (the floors of DESIGN.md's layout)
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

# the benchmark suite of issue 5 (under 15 minutes on 2 cores); writes bench/RESULTS.md.
# BENCH_ARGS=--quick for a smoke run, BENCH_ARGS='--only micro,front' for some groups
bench: $(STAMP)
	$(PY) bench/run.py $(BENCH_ARGS)

clean:
	rm -rf $(STAMP) *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -not -path './$(VENV)/*' -prune -exec rm -rf {} +
