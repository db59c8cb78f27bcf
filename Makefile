# Thin targets over the course's tools. `make lab` to learn, `make test` to check everything.
.DEFAULT_GOAL := lab
SHELL := /bin/bash

VENV := .venv
BIN := $(VENV)/bin
# The venv's bin comes first so `grader`, `nbgrader` and `alembic` are found (also in Lab terminals).
export PATH := $(CURDIR)/$(BIN):$(PATH)
# Extra arguments for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port 8899".
LAB_ARGS ?=
# Extra arguments for pytest, e.g. make test PYTEST_ARGS="-k build".
PYTEST_ARGS ?=
# Extra arguments for grader autograde, e.g. make grade GRADE_ARGS="01_numpy_interop --from class.zip".
GRADE_ARGS ?=
# Extra arguments for the benchmarks, e.g. make bench BENCH_ARGS=--reuse-grading.
BENCH_ARGS ?=
# Jupyter refuses to run as root unless told to; containers and CI machines often are root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: lab test release grade sandbox bench venv clean-venv

# The environment is built once and rebuilt when the pins or the package description change.
$(VENV)/.installed: requirements.txt pyproject.toml tools/find-python
	@set -e; \
	if [ ! -x $(BIN)/python ]; then \
	  py=$$(tools/find-python); \
	  echo "Creating $(VENV) with $$py"; \
	  "$$py" -m venv $(VENV) || { rm -rf $(VENV); echo "Could not create $(VENV) with $$py" >&2; exit 1; }; \
	fi; \
	$(BIN)/python -m pip install --quiet -r requirements.txt; \
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .; \
	touch $@

venv: $(VENV)/.installed

lab: $(VENV)/.installed
	$(BIN)/jupyter lab --ServerApp.root_dir=notebooks $(ROOT_FLAG) $(LAB_ARGS)

test: $(VENV)/.installed sandbox
	$(BIN)/python -m pytest $(PYTEST_ARGS)

release: $(VENV)/.installed
	$(BIN)/grader release

# Installs bubblewrap (Debian/Ubuntu) when missing; grading without it warns and uses limits only.
sandbox:
	@tools/install-sandbox || echo "make: no sandbox available; grading will use resource limits only" >&2

# Grades submitted/ (or GRADE_ARGS="--from download.zip") into gradebook.db, grades.csv, feedback/.
grade: $(VENV)/.installed sandbox
	$(BIN)/grader autograde $(GRADE_ARGS)

# Speed is measured here, never in a pass/fail test; the report goes to bench/REPORT.md.
bench: $(VENV)/.installed
	$(BIN)/python bench/run.py $(BENCH_ARGS)

clean-venv:
	rm -rf $(VENV)
