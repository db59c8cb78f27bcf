# Thin targets over the course's tools. `make lab` to learn, `make test` to check everything.
.DEFAULT_GOAL := lab
SHELL := /bin/bash

VENV := .venv
BIN := $(VENV)/bin
# The venv's bin comes first so `grader`, `nbgrader` and `alembic` are found (also in Lab terminals).
export PATH := $(CURDIR)/$(BIN):$(PATH)
# Extra arguments for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port 8899".
LAB_ARGS ?=
# The folder the learner's Lab opens on (a copy of notebooks/ elsewhere works too).
NOTEBOOKS ?= notebooks
# The folder a class learner's Lab (make class-lab) opens on, where its Assignments page fetches chapters.
CLASS_DIR ?= $(HOME)
# Extra arguments for pytest, e.g. make test PYTEST_ARGS="-k build".
PYTEST_ARGS ?=
# How many pytest-xdist workers `make test` runs tests on (conftest.py keeps each notebook, and each
# module whose tests share a fixture, on one worker). TEST_WORKERS=0 runs them in this process.
TEST_WORKERS ?= 2
# Extra arguments for grader autograde, e.g. make grade GRADE_ARGS="01_numpy_interop --from class.zip".
GRADE_ARGS ?=
# Extra arguments for the benchmarks, e.g. make bench BENCH_ARGS=--reuse-grading.
BENCH_ARGS ?=
# The JAX release `make drift` runs the solution notebooks on, e.g. make drift JAX=0.11.2, and its
# extra arguments, e.g. DRIFT_ARGS="00_start_here --out /tmp/report.md".
JAX ?=
DRIFT_ARGS ?=
# Jupyter refuses to run as root unless told to; containers and CI machines often are root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: lab class-lab teach test races release grade sandbox browser bench drift venv kernels headers clean-venv

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

# The XLA FFI header compiled once into the venv, so that a C++ build reads it in a moment instead of
# parsing it (grader.notebook.build.precompile_headers). Builds work without it, only more slowly.
$(VENV)/.headers: $(VENV)/.installed grader/notebook/build.py
	@if $(BIN)/python -c "import sys; from grader.notebook.build import precompile_main; sys.exit(precompile_main())"; \
	then touch $@; else echo "make: going on without it" >&2; fi

headers: $(VENV)/.headers

# Chapter 12's kernels, a pip-installable package (CMake + scikit-build-core + nanobind), built
# offline with the pinned build tools already in the venv, and rebuilt when its sources change.
KERNELS := packages/jbj_fast_kernels
$(VENV)/.kernels: $(VENV)/.installed cpp/fast_rms_norm.cc cpp/fast_rms_norm.h \
                  $(wildcard $(KERNELS)/*.toml $(KERNELS)/*.txt $(KERNELS)/src/*.cc $(KERNELS)/src/*.h $(KERNELS)/src/*/*.py) \
                  | $(VENV)/.headers
	@echo "Building and installing $(KERNELS) into $(VENV)"
	@if $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation ./$(KERNELS) \
	     > $(VENV)/kernels-build.log 2>&1; then touch $@; else \
	  tail -n 15 $(VENV)/kernels-build.log >&2; \
	  echo "make: chapter 12's package $(KERNELS) did not build (the log above, in full in $(VENV)/kernels-build.log). It needs a C++17 compiler (g++); install one and run make again." >&2; \
	  exit 1; fi

kernels: $(VENV)/.kernels

# The learner's Lab: lab/learner/ turns off nbgrader's instructor tools (Create Assignment,
# Formgrader, the Nbgrader menu) and JupyterLab's news pop-up, for this Lab only. JBJ_NOTEBOOKS tells
# `grader check CHAPTER`, run in one of its terminals, which folder the Lab shows. The instructor's
# `jupyter lab` started in the course folder keeps every nbgrader tool.
# The Lab opens even if the package cannot be built: only chapter 12 needs it.
lab: $(VENV)/.installed
	@$(MAKE) --no-print-directory kernels || echo "make: starting the Lab anyway; chapters 00-11 do not need the package" >&2
	JUPYTER_CONFIG_PATH="$(CURDIR)/lab/learner$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	  JBJ_NOTEBOOKS="$(abspath $(NOTEBOOKS))" \
	  $(BIN)/jupyter lab --ServerApp.root_dir="$(NOTEBOOKS)" $(ROOT_FLAG) $(LAB_ARGS)

# A class learner's Lab: lab/class/ keeps nbgrader's Assignments page (fetch, submit, fetch feedback)
# and the Nbgrader menu that opens it, and turns off the instructor's tools (Create Assignment,
# Formgrader, Course List) and JupyterLab's news pop-up. It opens on CLASS_DIR, where fetched chapters
# go; the course id and the exchange come from the learner's own nbgrader_config.py (README, "The exchange").
# It starts in CLASS_DIR, not here: nbgrader reads an nbgrader_config.py in the folder it starts in, and
# this folder's is the instructor's.
class-lab: $(VENV)/.installed
	@$(MAKE) --no-print-directory kernels || echo "make: starting the Lab anyway; chapters 00-11 do not need the package" >&2
	cd "$(abspath $(CLASS_DIR))" && JUPYTER_CONFIG_PATH="$(CURDIR)/lab/class$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	  "$(CURDIR)/$(BIN)/jupyter" lab --ServerApp.root_dir="$(abspath $(CLASS_DIR))" $(ROOT_FLAG) $(LAB_ARGS)

# The instructor's Lab on the course folder: every nbgrader tool (formgrader included), and
# lab/instructor/ turns off JupyterLab's news pop-up.
teach: $(VENV)/.kernels
	JUPYTER_CONFIG_PATH="$(CURDIR)/lab/instructor$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	  $(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" $(ROOT_FLAG) $(LAB_ARGS)

test: $(VENV)/.kernels sandbox browser
	$(BIN)/python -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

# Grades every race in the wrong-answer corpus, and every answer judged by its speed, 20 times (make
# test does twice), all but the first with every CPU busy: each must lose (or keep) its points every time.
races: $(VENV)/.kernels sandbox
	JBJ_RACE_RUNS=$${JBJ_RACE_RUNS:-20} $(BIN)/python -m pytest -n $(TEST_WORKERS) \
	  tests/test_wrong_answers.py -k lose_their_points $(PYTEST_ARGS)

release: $(VENV)/.installed
	$(BIN)/grader release

# Installs bubblewrap (Debian/Ubuntu) when missing; grading without it warns and uses limits only.
sandbox:
	@tools/install-sandbox || echo "make: no sandbox available; grading will use resource limits only" >&2

# Installs Debian's chromium when missing, for the browser test (which fails, saying why, without it).
browser:
	@tools/install-browser || echo "make: no chromium; the browser test will fail until it is installed" >&2

# Grades submitted/ (or GRADE_ARGS="--from download.zip") into gradebook.db, grades.csv, feedback/.
grade: $(VENV)/.kernels sandbox
	$(BIN)/grader autograde $(GRADE_ARGS)

# Speed is measured here, never in a pass/fail test; the report goes to bench/REPORT.md.
bench: $(VENV)/.kernels
	$(BIN)/python bench/run.py $(BENCH_ARGS)

# Runs every solution notebook on another JAX in .drift/venv-<version> and writes drift/REPORT-<version>.md.
drift: $(VENV)/.kernels
	@test -n "$(JAX)" || { echo "make drift: say which JAX release, e.g. make drift JAX=0.11.2" >&2; exit 2; }
	$(BIN)/python tools/drift.py --jax $(JAX) $(DRIFT_ARGS)

clean-venv:
	rm -rf $(VENV)
