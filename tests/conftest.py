"""Shared fixtures: the repository's layout and the chapters in it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.course import chapters as list_chapters
from grader.course import repo_root

ROOT = repo_root()
CHAPTERS = list_chapters(ROOT)

# Fixture notebooks are inputs to tests, not notebooks for nbval to run.
collect_ignore_glob = ["files/*"]


@pytest.fixture
def course_copy(tmp_path: Path) -> Path:
    """A scratch copy of the course (config, solutions, learner notebooks, C++) to grade in."""
    for name in ("nbgrader_config.py",):
        shutil.copy(ROOT / name, tmp_path / name)
    for folder in ("solutions", "notebooks", "cpp"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return tmp_path


@pytest.fixture
def build_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty C++ build cache, so a test sees real compiles."""
    cache = tmp_path / "build-cache"
    monkeypatch.setenv("JBJ_BUILD_CACHE", str(cache))
    return cache
