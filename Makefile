# Red Dog table service. `make run` and `make test` are all a newcomer needs; `make help` lists the rest.
.DEFAULT_GOAL := help
SHELL := /bin/bash
# The probe is silent: pyenv puts a shim on PATH for every version it knows, and a shim for a version that is not
# installed prints "pyenv: python3.13: command not found" when run.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

$(STAMP): pyproject.toml constraints.txt
	@test -n "$(PYTHON)" || { echo "Python 3.11 or newer is needed (none found on PATH)"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

.PHONY: help
help: ## Show this help
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

.PHONY: install
install: $(STAMP) ## Create .venv and install the project with its test tools (pinned by constraints.txt)

# exec: the server replaces the recipe's shell, so make's own child is the server: SIGTERM to make (which make passes
# on) or SIGINT to its child reaches the server itself, never a shell that would die and orphan it. GNU make does not
# pass SIGINT on: it expects a terminal's Ctrl-C, which reaches the whole process group, the server included.
.PHONY: run
run: $(STAMP) ## Serve the API on http://127.0.0.1:8000 (embedded PostgreSQL under .data/ unless DATABASE_URL is set)
	@# reddog serve never migrates a server it is given: migrate it first (the embedded one serve migrates itself)
	@if [ -n "$$DATABASE_URL" ]; then $(BIN)/reddog migrate; fi
	@echo "In Between with friends: http://$${RD_HOST:-127.0.0.1}:$${RD_PORT:-8000}/play/inbetween (open it on each phone)"
	exec $(BIN)/reddog serve

# The OpenAPI lints and the TypeScript client test run the Node tools pinned in tools/node: installed before the tests
# when Node and npm are here (without them those tests skip, and fail under CI=true).
# The push benchmark's short form (tests/e2e/test_friends_push_bench.py) runs bench/'s generator: its one package too.
TOOLS_STAMP := tools/node/node_modules/.package-lock.json
NODE_STAMP := bench/node_modules/.package-lock.json
NODE_TOOLS := $(if $(shell command -v node >/dev/null && command -v npm),$(TOOLS_STAMP) $(NODE_STAMP))

$(TOOLS_STAMP): tools/node/package.json tools/node/package-lock.json
	cd tools/node && REDOCLY_TELEMETRY=off npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $(TOOLS_STAMP)

# pytest-xdist workers share one PostgreSQL (tests/conftest.py starts it before they do); at least two even on one
# core, since a test spends most of its time waiting on the database. TEST_WORKERS=0 runs in one process.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n < 2 ? 2 : n )))

.PHONY: test
test: $(STAMP) $(NODE_TOOLS) ## Run every test against a real PostgreSQL (the fault tests in their short forms)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

# The long forms of the fault tests (tests/faults, docs/faults.md); `make test` runs their short forms.
FUZZ_EXAMPLES ?= 50
FAULT_CLIENTS ?= 32
STALLED_CONNECTIONS ?= 1500

.PHONY: fuzz
fuzz: $(STAMP) ## Long fault runs: schemathesis (FUZZ_EXAMPLES per operation), kill -9 and database loss (FAULT_CLIENTS), STALLED_CONNECTIONS
	RD_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) RD_FAULT_CLIENTS=$(FAULT_CLIENTS) RD_FAULT_LOAD_SECONDS=5 RD_FAULT_GAP_SECONDS=5 \
		RD_RACE_ROUNDS=100 RD_FAILOVER_ROUNDS=1000 RD_FAILOVER_LAGGING=200 RD_RESTORE_ROUNDS=100 \
		RD_STALLED_CONNECTIONS=$(STALLED_CONNECTIONS) RD_AUTH_FAILURES=10000 RD_OUTBOX_KILLS=6 RD_OUTBOX_INSTANCE_ROUNDS=400 RD_BOT_GAMES=800 \
		$(BIN)/python -m pytest -n $(TEST_WORKERS) tests/faults tests/integration/test_auth_failure_limits.py tests/unit/test_inbetween_bot.py $(PYTEST_ARGS)
	RD_RECEIVER_AWAY_SECONDS=30 $(BIN)/python -m pytest -n 0 tests/api/test_outbox.py -k away_for $(PYTEST_ARGS)

# The browser tests compare screenshots with tests/browser/baselines (tests/support/page_checks.py says how): after a
# change that is meant to change how a page looks, rewrite them here and look at them before committing.
.PHONY: screenshots
screenshots: $(STAMP) $(NODE_TOOLS) ## Rewrite the browser tests' screenshot baselines (tests/browser/baselines)
	RD_UPDATE_BASELINES=1 $(BIN)/python -m pytest -n 0 tests/browser $(PYTEST_ARGS)

.PHONY: lint
lint: $(STAMP) ## ruff lint and format check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

.PHONY: types
types: $(STAMP) ## mypy --strict over the code and the tests
	$(BIN)/mypy

.PHONY: check
check: lint types test ## Lint, types and tests: what must be clean before a commit

.PHONY: format
format: $(STAMP) ## Apply ruff's fixes and formatting
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The container image, stamped with the commit it is built from: the system chain records that revision at every
# start (an image has no git checkout to ask). IMAGE=registry.example.com/reddog:TAG names it for your registry.
IMAGE ?= reddog:local
DOCKER ?= docker

.PHONY: image
image: ## Build the container image (deploy/Dockerfile) as IMAGE (default reddog:local), with this checkout's git revision
	$(DOCKER) build -f deploy/Dockerfile --build-arg RD_GIT_REVISION="$$(git rev-parse HEAD)" -t $(IMAGE) .

.PHONY: rtp
rtp: $(STAMP) ## Print the exact RTP table of every released paytable at 6 decks
	@for p in $$($(BIN)/reddog paytables --ids); do $(BIN)/reddog rtp $$p --decks 6; echo; done

BENCH_SECONDS ?= 30
BENCH_CLIENTS ?= 32
BENCH_WARMUP ?= 5
# Two workers: on a 2-core machine one worker's single thread is the limit (a round request is mostly Python), and
# `reddog serve` gives each worker a listening socket of its own, so the clients' connections split between them.
RD_WORKERS ?= 2
BENCH := $(BIN)/python -m bench --seconds $(BENCH_SECONDS) --clients $(BENCH_CLIENTS) --warmup $(BENCH_WARMUP) \
	--workers $(RD_WORKERS)

$(NODE_STAMP): bench/package.json bench/package-lock.json
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "make bench needs Node 20 and npm"; exit 1; }
	cd bench && npm ci --no-audit --no-fund --loglevel=error

# The friends' live updates (docs/benchmarks.md, "Friends' push"): PUSH_CLIENTS phones holding push streams (a list
# such as 1000,2000,3000 finds where it breaks), PUSH_RATE moves a second, on RD_WORKERS workers.
PUSH_CLIENTS ?= 2000
PUSH_RATE ?= 50
PUSH := $(BIN)/python -m bench.friends_push --clients $(PUSH_CLIENTS) --rate $(PUSH_RATE) --seconds $(BENCH_SECONDS) \
	--warmup $(BENCH_WARMUP) --workers $(RD_WORKERS)

.PHONY: bench
bench: $(STAMP) $(NODE_STAMP) ## Benchmark rounds, the HTTP floor, the outbox's delivery lag, the database ceiling, then the friends' push (BENCH_SECONDS, BENCH_CLIENTS, RD_WORKERS, PUSH_CLIENTS, PUSH_RATE); then make fuzz
	$(BENCH)
	$(PUSH)
	@# after the measured run, never beside it: the long fault runs would take the CPU the figures are about
	$(MAKE) --no-print-directory fuzz

.PHONY: bench-push
bench-push: $(STAMP) $(NODE_STAMP) ## Only the friends' push benchmark: PUSH_CLIENTS streams, PUSH_RATE moves/s, and the cost of one publish
	$(PUSH)

.PHONY: bench-300k
bench-300k: $(STAMP) $(NODE_STAMP) ## make bench, then again once the database holds 300k rounds (seeded by SQL)
	$(BENCH) --seed-rounds 300000

# The work a request does, counted (bench/instructions.py): the service and PostgreSQL under callgrind, one client
# playing INSTRUCTION_ROUNDS rounds; BASE=<git revision> counts that revision too (needs valgrind and Debian's
# PostgreSQL binaries). Slow (a minute or two a side), and it says nothing of time: read that with bench-compare.
INSTRUCTION_ROUNDS ?= 150
.PHONY: bench-instructions
bench-instructions: $(STAMP) $(NODE_STAMP) ## Instructions a request costs the service and PostgreSQL, counted by callgrind (BASE, INSTRUCTION_ROUNDS)
	$(BIN)/python -m bench.instructions $(if $(BASE),--base $(BASE)) --rounds $(INSTRUCTION_ROUNDS)

BENCH_PAIRS ?= 3
.PHONY: bench-compare
bench-compare: $(STAMP) $(NODE_STAMP) ## This tree against BASE (a git revision) in interleaved pairs: ratios of rounds/s and CPU per round
	@test -n "$(BASE)" || { echo "make bench-compare needs BASE=<git revision>"; exit 1; }
	$(BIN)/python -m bench.compare --base $(BASE) --pairs $(BENCH_PAIRS) --seconds $(BENCH_SECONDS) \
		--warmup $(BENCH_WARMUP) --clients $(BENCH_CLIENTS) --workers $(RD_WORKERS)

# The auditors' tools on the 100,000-round export (tests/benchmarks/bench_audit_cli.py, docs/benchmarks.md "Audit
# tools"): whole `reddog audit verify` / `replay` processes, one job and every core; BASE=<git revision> times that
# revision too, from a worktree of its own, run by run in turn with this tree.
AUDIT_RUNS ?= 3
.PHONY: bench-audit
bench-audit: $(STAMP) ## verify and replay of the 100,000-round export as whole commands, one job and every core (BASE, AUDIT_RUNS)
	@base=""; if [ -n "$(BASE)" ]; then base=$${TMPDIR:-/tmp}/reddog-audit-base-$$(git rev-parse --short $(BASE)); \
		test -d $$base || git worktree add --detach $$base $(BASE); $(MAKE) -C $$base install >/dev/null; fi; \
	$(BIN)/python -m tests.benchmarks.bench_audit_cli --runs $(AUDIT_RUNS) $${base:+--base $$base}

.PHONY: rng-report
rng-report: $(STAMP) ## Chi-square of 1,000,000 production shuffles and dieharder on their draws -> docs/rng-report.md
	$(BIN)/python -m bench.rng_report $(RNG_REPORT_ARGS)

.PHONY: clean
clean: ## Remove the virtualenv and caches (keeps .data/)
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
