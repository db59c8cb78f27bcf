"""How `make test` shares tests among pytest-xdist's workers.

Here, beside pyproject.toml, so that it applies to every path pytest is given: tests/ and
solutions/ alike. The tests' own fixtures are in tests/conftest.py.

A file runs whole on one worker, in order: a notebook's cells share one kernel (nbval), and a
module's tests may share a fixture made once (a class graded, a Lab started). The modules in
`SPREAD` hold many independent tests, each a chapter's worth of work; each of their tests goes to
whichever worker is free. (xdist's own `--dist loadgroup` would say this with marks, but it
silently stops grouping on pytest 9.2's node ids: pytest-dev/pytest-xdist#1386.)
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

#: Modules whose tests share nothing made once per module or session (checked at collection).
SPREAD = {"tests/test_wrong_answers.py", "tests/test_check.py", "tests/test_notebooks.py"}

#: Tests of `SPREAD` that run as one unit per chapter (their parameter), on one worker, in this order:
#: a chapter's wrong answers are graded in a kernel that runs its reference solution first, and the
#: records it makes, and the caches a reference run would leave (tests/wrong_answers/grading.py,
#: `ChapterGrader.publish`), are where `grader check` looks for them, so that the chapter's `grader
#: check` test after it needs no reference run and compiles no more than a submission would.
TOGETHER = ("tests/test_wrong_answers.py::test_wrong_answers_lose_their_points_and_only_those",
            "tests/test_check.py::test_each_exercise_is_scored_as_graded")

#: Units of work that take minutes, with their rough time in seconds on a 2-core machine (from
#: `--durations`). They start first, longest first, so that no long one starts last while the other
#: worker has nothing left; everything else follows in collection order. Only the order matters.
LONG = {
    "tests/test_autograde.py": 180,
    "tests/test_autograde_chapters.py": 130,
    "tests/test_autograde_e2e.py": 85,
    "tests/test_check.py::test_each_exercise_is_scored_as_graded[12_fast_kernels]": 40,
    "tests/test_autograde_dask.py": 100,
    "solutions/12_fast_kernels/12_fast_kernels.ipynb": 45,
    "tests/test_exchange.py": 45,
    "tests/test_fast_kernels.py": 35,
    "tests/test_wrong_answers.py::test_wrong_answers_lose_their_points_and_only_those[10_hijax]": 55,
    "tests/test_lab.py": 95,
    "tests/test_wrong_answers.py::test_wrong_answers_lose_their_points_and_only_those[12_fast_kernels]": 500,
    "tests/test_cluster.py": 40,
    "solutions/11_cpp_ffi/11_cpp_ffi.ipynb": 20,
    "tests/test_notebooks.py::test_learner_notebook_fails_only_with_not_answered_yet[12_fast_kernels]": 32,
    "tests/test_check.py::test_each_exercise_is_scored_as_graded[11_cpp_ffi]": 15,
    "tests/test_wrong_answers.py::test_wrong_answers_lose_their_points_and_only_those[08_autodiff_batching_rules]": 40,
    "solutions/08_autodiff_batching_rules/08_autodiff_batching_rules.ipynb": 35,
    "tests/test_wrong_answers.py::test_corpus_grading_agrees_with_the_autograder": 57,
    "tests/test_wrong_answers.py::test_wrong_answers_lose_their_points_and_only_those[11_cpp_ffi]": 80,
}


def _file(nodeid: str) -> str:
    return nodeid.split("::")[0]


def _together(nodeid: str) -> tuple[int, str] | None:
    """(place in `TOGETHER`, chapter) for a test of `TOGETHER`, else None."""
    function, _, parameter = nodeid.partition("[")
    return (TOGETHER.index(function), parameter.rstrip("]")) if function in TOGETHER else None


def _start_kernel_again_if_it_died(start):
    """nbval's start_new_kernel, tried up to three times when the kernel exits before it answers: on
    a machine busy starting many kernels, a new kernel can lose one of its ports to another before it
    binds it (jupyter_client picks free ports, then the kernel binds them) and exit at once. A kernel
    that cannot start fails three times and is reported as before."""
    def start_new_kernel(*args, **kwargs):
        for attempt in range(3):
            try:
                return start(*args, **kwargs)
            except RuntimeError as error:
                if "died before replying" not in str(error) or attempt == 2:
                    raise
    return start_new_kernel


def pytest_configure(config):
    """The session's `grader check` reference records go to a folder of its own (`$JBJ_REFERENCE_CACHE`,
    which pytest-xdist's workers inherit): a run neither reads nor fills the user's cache. Timing
    comparisons take a few rounds (`$JBJ_TIMING_ROUNDS`). Each worker's kernels keep their JAX
    compilations in a folder of the session's (`jax_cache`)."""
    try:
        import nbval.kernel
    except ImportError:
        pass
    else:
        if not getattr(nbval.kernel.start_new_kernel, "__wrapped_by_course__", False):
            nbval.kernel.start_new_kernel = _start_kernel_again_if_it_died(nbval.kernel.start_new_kernel)
            nbval.kernel.start_new_kernel.__wrapped_by_course__ = True
    if hasattr(config, "workerinput"):
        jax_cache(os.environ["JBJ_TEST_JAX_CACHES"], config.workerinput["workerid"])
        return
    config._jbj_reference_cache = tempfile.mkdtemp(prefix="jbj-test-reference-")
    os.environ["JBJ_REFERENCE_CACHE"] = config._jbj_reference_cache
    # The notebooks' timings are printed, never asserted: a few rounds of each comparison, as when graded.
    from grader.autograde.sandbox import GRADING_TIMING_ROUNDS

    os.environ.setdefault("JBJ_TIMING_ROUNDS", str(GRADING_TIMING_ROUNDS))
    config._jbj_jax_caches = tempfile.mkdtemp(prefix="jbj-test-jax-cache-")
    os.environ["JBJ_TEST_JAX_CACHES"] = config._jbj_jax_caches
    jax_cache(config._jbj_jax_caches, "main")


def jax_cache(base: str, worker: str) -> None:
    """Kernels this process starts outside grading (nbval's, the learner-notebook runs) keep their JAX
    compilations in `base`/`worker`, and load what an earlier kernel of this worker compiled: a
    chapter's solution and its learner notebook compile many of the same programs, and a notebook
    compiles some of them again under new functions. One folder per worker, whose kernels run one at
    a time: JAX writes an entry in place (no lock without the filelock package), so a kernel of the
    other worker could read one half written. Grading kernels set their own (`sandbox.compute_env`),
    as grading does."""
    os.environ["JAX_COMPILATION_CACHE_DIR"] = os.path.join(base, worker)
    os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    os.environ["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"


def pytest_unconfigure(config):
    for folder in (getattr(config, "_jbj_reference_cache", None), getattr(config, "_jbj_jax_caches", None)):
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ByFile(LoadScopeScheduling):
        """Each file is one unit of work, but for the tests of `SPREAD`, each its own; the `LONG`
        units first."""

        def _split_scope(self, nodeid: str) -> str:
            together = _together(nodeid)
            if together:
                return f"{TOGETHER[0]}[{together[1]}]"
            return nodeid if _file(nodeid) in SPREAD else _file(nodeid)

        def schedule(self) -> None:
            # LoadScopeScheduling.schedule (xdist 3.8.0), with the work queue in our order: the first
            # call makes the queue and hands each worker its first units; later calls are xdist's.
            if self.collection is not None:
                return super().schedule()
            if not self._check_nodes_have_same_collection():
                self.log("**Different tests collected, aborting run**")
                return
            self.collection = list(next(iter(self.registered_collections.values())))
            if not self.collection:
                return
            units: dict[str, dict[str, bool]] = {}
            for nodeid in self.collection:
                units.setdefault(self._split_scope(nodeid), {})[nodeid] = False
            def seconds(scope: str) -> float:
                return LONG.get(scope, 0) + sum(LONG.get(nodeid, 0) for nodeid in units[scope] if nodeid != scope)

            for scope in sorted(units, key=lambda scope: -seconds(scope)):  # stable: the rest keep their order
                self.workqueue[scope] = units[scope]
            for _ in range(max(len(self.nodes) - len(self.workqueue), 0)):  # more workers than work
                self.assigned_work.popitem()[0].shutdown()
            for node in self.nodes:
                self._assign_work_unit(node)
            for node in self.nodes:
                self._reschedule(node)
            if not self.workqueue:
                for node in self.nodes:
                    node.shutdown()

    return ByFile(config, log)


def pytest_collection_modifyitems(config, items):
    """Each test of `TOGETHER` but the first runs right after the test before it in `TOGETHER` for its
    chapter (with or without pytest-xdist). A test of `SPREAD` that uses a fixture made once per module
    or session would make it once on each worker it lands on, or share it by chance: refuse to run,
    saying which."""
    found = {_together(item.nodeid): item for item in items if _together(item.nodeid)}
    ordered = []
    for item in items:
        together = _together(item.nodeid)
        if together and (together[0] - 1, together[1]) in found:
            continue  # placed after the test before it
        ordered.append(item)
        while together and (together[0] + 1, together[1]) in found:
            together = (together[0] + 1, together[1])
            ordered.append(found[together])
    items[:] = ordered
    for item in items:
        if _file(item.nodeid) not in SPREAD:
            continue
        definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        shared = sorted(name for name, defs in definitions.items()
                        if defs and defs[-1].baseid and defs[-1].scope != "function")
        if shared:
            raise pytest.UsageError(f"{item.nodeid} uses {', '.join(shared)}, made once per module or session: "
                                    f"take {_file(item.nodeid)} out of SPREAD in conftest.py, or give the test "
                                    "a fixture of its own")
