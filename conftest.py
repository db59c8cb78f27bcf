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

import pytest

#: Modules whose tests share nothing made once per module or session (checked at collection).
SPREAD = {"tests/test_wrong_answers.py", "tests/test_check.py", "tests/test_notebooks.py"}


def _file(nodeid: str) -> str:
    return nodeid.split("::")[0]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ByFile(LoadScopeScheduling):
        """Each file is one unit of work, but for the tests of `SPREAD`, each its own."""

        def _split_scope(self, nodeid: str) -> str:
            return nodeid if _file(nodeid) in SPREAD else _file(nodeid)

    return ByFile(config, log)


def pytest_collection_modifyitems(config, items):
    """A test of `SPREAD` that uses a fixture made once per module or session would make it once on
    each worker it lands on, or share it by chance: refuse to run, saying which."""
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
