"""What nbgrader_config.py tells the grader (`grader.autograde.config`): the kernels' limits."""

from __future__ import annotations

import shutil
from dataclasses import fields

import pytest

from conftest import ROOT
from grader import cli
from grader.autograde import config
from grader.autograde.sandbox import Limits
from grader.errors import CourseError


def _course(tmp_path, *lines: str):
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    with open(tmp_path / "nbgrader_config.py", "a") as f:
        f.write("\n" + "\n".join(lines) + "\n")
    return tmp_path


def test_a_limit_comes_from_the_flag_then_the_config_then_its_default(tmp_path):
    """With cell_seconds and disk_bytes set in nbgrader_config.py, does `grader autograde --disk-mb 8` give the
    kernels the flag's disk, the file's cell time and every other limit's default?"""
    course = _course(tmp_path, "c.GradingLimits.cell_seconds = 45", "c.GradingLimits.disk_bytes = 64 << 20")
    args = cli.parser().parse_args(["autograde", "--course", str(course), "--disk-mb", "8"])
    limits = config.limits(course, **cli.limits_given(args))
    assert limits == Limits(cell_seconds=45.0, disk_bytes=8 << 20)
    plain = tmp_path / "plain"
    plain.mkdir()
    assert config.limits(_course(plain)) == Limits()


@pytest.mark.parametrize("line, words", [
    ("c.GradingLimits.cell_timeout = 60", "c.GradingLimits.cell_timeout, which is not a limit; the limits are: "
                                          "cell_seconds, notebook_seconds"),
    ("c.GradingLimits.memory_bytes = '4G'", "c.GradingLimits.memory_bytes in nbgrader_config.py must be a positive "
                                            "whole number (bytes), not '4G'"),
    ("c.GradingLimits.cpu_cores = 0", "c.GradingLimits.cpu_cores in nbgrader_config.py must be a positive number "
                                      "(cores), not 0"),
    ("c.GradingLimits = 3", "could not be read"),
])
def test_a_limit_the_config_gets_wrong_is_refused_saying_where(tmp_path, line, words):
    """Is a name that is not a limit, or a value that is not a positive number of the limit's kind, refused
    before grading with one line that says what is wrong and where it was set?"""
    with pytest.raises(CourseError) as caught:
        config.limits(_course(tmp_path, line))
    assert words in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_every_limit_has_one_flag_with_its_help_default_and_config_name(capsys):
    """Does `grader autograde --help` list a flag for each limit of `Limits`, each with its help text, its default
    in the flag's unit and its name in nbgrader_config.py, and nothing else in that group?"""
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["autograde", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    group = text.split("limits per kernel:", 1)[1]
    for f in fields(Limits):
        meta = f.metadata
        assert f"{meta['flag']} " in group, f.name
        default = f"(default: {f.default / meta['scale']:g}; c.GradingLimits.{f.name})"
        assert " ".join(f"{meta['help']} {default}".split()) in group, f.name
    assert group.count(" --") == len(fields(Limits))
    assert cli.parser().parse_args(["autograde", "--memory-mb", "2048"]).limit_memory_bytes == 2048
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["autograde", "--cell-timeout", "-1"])
