"""How `grader autograde` runs notebooks: worker processes, the kernel launcher, shared caches.

Each test runs real kernels (sandboxed where this machine allows it) on chapter 00.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import nbformat

from conftest import ROOT
from grader.autograde import sandbox, worker
from grader.autograde.run import Workers as _Workers
from grader.course import solution_path

CHAPTER = "00_start_here"


def _job(tmp_path: Path, name: str, notebook: Path, **extra) -> Path:
    """A worker job file for `notebook`, graded as chapter 00."""
    job = {"student": name, "chapter": CHAPTER, "notebook": str(notebook),
           "source": str(solution_path(CHAPTER, ROOT)), "other_sources": {},
           "executed": str(tmp_path / f"{name}-executed.ipynb"),
           "limits": asdict(sandbox.Limits(cell_seconds=120, notebook_seconds=300)),
           "sandboxed": sandbox.probe().sandboxed, **extra}
    path = tmp_path / f"{name}.job.json"
    path.write_text(json.dumps(job))
    return path


def _submission(tmp_path: Path, name: str, extra_cell: str | None = None) -> Path:
    """Chapter 00's solution as a student's file, optionally with one more cell after the imports."""
    nb = nbformat.read(solution_path(CHAPTER, ROOT), as_version=4)
    if extra_cell is not None:
        nb.cells.insert(3, nbformat.v4.new_code_cell(extra_cell))
    folder = tmp_path / name
    folder.mkdir()
    nbformat.write(nb, folder / f"{CHAPTER}.ipynb")
    return folder / f"{CHAPTER}.ipynb"


def test_the_package_imports_no_notebook_libraries_in_a_kernel():
    """Does `import grader` (what every chapter's first cell does) stay free of nbformat, whose
    JSON-schema checks take about two seconds to import, in every kernel of every learner?"""
    code = ("import sys, grader, grader.checks, grader.memory, grader.record; "
            "print(sorted(m for m in ('nbformat', 'jsonschema', 'nbclient') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_launcher_runs_on_the_standard_library_alone(tmp_path):
    """Started with -I -S (no site-packages), does launch.py set the limits and start the kernel
    command in the submission's folder with the grader's environment, and nothing inherited?"""
    workdir = tmp_path / "w"
    workdir.mkdir()
    limits = sandbox.Limits(memory_bytes=3 << 30, cpu_seconds=77, file_bytes=5 << 20)
    config = tmp_path / "launch.json"
    sandbox.write_launch_config(config, workdir=workdir, limits=limits, sandboxed=False, cgroups=[])
    probe = ("import os, resource; print(resource.getrlimit(resource.RLIMIT_AS)[0], "
             "resource.getrlimit(resource.RLIMIT_CPU)[0], resource.getrlimit(resource.RLIMIT_FSIZE)[0], "
             "os.getcwd(), os.environ.get('JBJ_RECORD'), os.environ.get('HOME') == os.getcwd(), "
             "'VIRTUAL_ENV_PROMPT_SECRET' in os.environ)")
    argv = sandbox.launcher_argv(config) + [sys.executable, "-c", probe]
    assert argv[1:3] == ["-I", "-S"]
    env = {"PATH": "/usr/bin:/bin", "VIRTUAL_ENV_PROMPT_SECRET": "x"}
    out = subprocess.run(argv, capture_output=True, text=True, check=True, env=env).stdout.split()
    assert out == [str(3 << 30), "77", str(5 << 20), str(workdir), "1", "True", "False"]


def test_a_kernel_does_not_outlive_the_process_that_launched_it(tmp_path):
    """If the grading process dies (killed at its deadline, say), does the kernel it started die
    with it, even without a sandbox?"""
    workdir = tmp_path / "w"
    workdir.mkdir()
    config = tmp_path / "launch.json"
    sandbox.write_launch_config(config, workdir=workdir, limits=sandbox.Limits(), sandboxed=False, cgroups=[])
    parent = ("import subprocess, sys, time; "
              f"p = subprocess.Popen({sandbox.launcher_argv(config) + ['sleep', '60']!r}); "
              "print(p.pid, flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", parent], stdout=subprocess.PIPE, text=True)
    kernel = int(proc.stdout.readline())
    time.sleep(0.5)  # the launcher has replaced itself with the "kernel" by now
    assert Path(f"/proc/{kernel}/cmdline").read_bytes().split(b"\0")[0] == b"sleep"
    proc.kill()
    proc.wait()
    for _ in range(50):
        state = Path(f"/proc/{kernel}/stat")
        if not state.exists() or state.read_text().split(")")[-1].split()[0] == "Z":
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the kernel outlived its launcher's parent")


def test_the_reference_shares_only_caches_made_before_its_first_answer(tmp_path):
    """Chapter 00 builds C++ in public demos ("warmup", and "warmup_mangled" without extern "C")
    and, inside exercise 3's answer, the solution's "cube". Does the reference run publish the
    demos and not the answer's, and does a submission's kernel start with a copy of what was
    published?"""
    public = ["warmup", "warmup_mangled"]
    warm = tmp_path / "warm"
    caches = {name: str(warm / name) for name in (".build-cache", ".jax-cache")}
    reference = worker.grade(json.loads(_job(tmp_path, "ref", solution_path(CHAPTER, ROOT),
                                                publish_caches=caches).read_text()))
    assert reference["status"] == "graded" and not reference["reason"], reference
    built = sorted(p.name.split("-")[0] for p in (warm / ".build-cache").glob("*.so"))
    assert built == public
    assert any((warm / ".jax-cache").iterdir()), "the public cells' compilations were not kept"

    look = "import os\nprint(sorted(n.split('-')[0] for n in os.listdir('.build-cache') if n.endswith('.so')))"
    student = worker.grade(json.loads(_job(tmp_path, "student", _submission(tmp_path, "student", look),
                                              seed_caches=caches).read_text()))
    assert student["status"] == "graded", student
    executed = nbformat.read(tmp_path / "student-executed.ipynb", as_version=4)
    assert executed.cells[3].outputs[0]["text"].strip() == repr(public)
    # What the submission's kernel wrote went to its own copy, not back to the shared one.
    assert sorted(p.name.split("-")[0] for p in (warm / ".build-cache").glob("*.so")) == public


def test_a_worker_survives_a_crashed_job_and_is_replaced_after_a_hung_one(tmp_path):
    """A job whose process dies without a result reports its exit status; a job past its deadline
    is killed with its worker; either way the next job on that pool grades normally. No job, not
    even the killed one, leaves its scratch folder (a copy of the submission) behind."""
    # A short path, as the system's temporary folder is: the kernel's sockets live under it, and a
    # Unix socket's path may not pass 107 bytes.
    scratch = Path(tempfile.mkdtemp(prefix="jbj-test-"))
    workers = _Workers(1, tmp_path, scratch_root=scratch)
    try:
        broken = tmp_path / "broken.job.json"
        broken.write_text("{ not json")
        paths = {"job": str(broken), "result": str(tmp_path / "broken.result.json"),
                 "log": str(tmp_path / "broken.log")}
        assert workers.run(paths, deadline=120) == 1
        assert not Path(paths["result"]).exists()
        assert "JSONDecodeError" in Path(paths["log"]).read_text()

        hung = _job(tmp_path, "hung", _submission(tmp_path, "hung", "import time\ntime.sleep(60)"))
        paths = {"job": str(hung), "result": str(tmp_path / "hung.result.json"), "log": str(tmp_path / "hung.log")}
        assert workers.run(paths, deadline=8) == "grading did not finish within 8 s"
        assert workers.count == 2  # the hung worker was replaced
        assert list(scratch.iterdir()) == [], "the killed job's scratch folder was left behind"

        fine = _job(tmp_path, "fine", _submission(tmp_path, "fine", "import os\nprint(os.getcwd())"))
        paths = {"job": str(fine), "result": str(tmp_path / "fine.result.json"), "log": str(tmp_path / "fine.log")}
        assert workers.run(paths, deadline=300) == 0
        result = json.loads(Path(paths["result"]).read_text())
        assert result["status"] == "graded" and not result["reason"], result
        # The new worker started a zygote again, which forked this kernel.
        assert result["applied"]["forked"] == sandbox.probe().sandboxed, result["applied"]
        ran_in = nbformat.read(tmp_path / "fine-executed.ipynb", as_version=4).cells[3].outputs[0]["text"].strip()
        assert Path(ran_in).parent.parent == scratch, f"the kernel ran in {ran_in}, not in a folder of {scratch}"
        assert list(scratch.iterdir()) == []
    finally:
        workers.close()
        shutil.rmtree(scratch, ignore_errors=True)
    assert all(worker.poll() is not None for worker in workers.started)
