# Two commands do all the set-up on a fresh machine:
#   make run   - create .venv, install, serve the API on http://127.0.0.1:8000 (embedded default)
#   make test  - create .venv, install, run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: install system-deps run test bench vendor

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

system-deps:
	@if [ "$$(id -u)" -eq 0 ]; then sh scripts/install-system-deps.sh; \
	 else sh scripts/install-system-deps.sh 2>/dev/null || sudo sh scripts/install-system-deps.sh; fi

run: install system-deps
	$(BIN)/grader serve --host $(HOST) --port $(PORT)

test: install system-deps
	$(BIN)/pytest -q -p no:cacheprovider

bench: install system-deps
	$(BIN)/python benchmarks/run_all.py

# re-fetch the learner page's browser assets from npm (needs node and npm; the result is committed)
vendor:
	$(PYTHON) scripts/vendor_assets.py
