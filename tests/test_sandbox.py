"""The grading sandbox: what a kernel can see and read, where the course lives, and which limits apply.

Each test starts bubblewrap directly with a one-line Python program (no Jupyter kernel): the same
command line a grading kernel gets, so the answers hold for kernels too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from grader.autograde import sandbox

READ = """
import json, os, sys
seen = {}
for path in sys.argv[1:]:
    try:
        open(path, 'rb').read(1)
        seen[path] = 'READ'
    except OSError as err:
        seen[path] = type(err).__name__
status = open('/proc/self/status').read()
seen['uid'] = os.getuid()
seen['caps'] = status.split('CapEff:')[1].split()[0]
try:
    open('/tmp/scratch', 'w').write('x')
    seen['/tmp'] = 'WRITABLE'
except OSError as err:
    seen['/tmp'] = type(err).__name__
print(json.dumps(seen))
"""


def _sandboxed(tmp_path: Path, code: str, *args: str, as_root: bool | None = None, extra=()) -> dict:
    if not sandbox.probe().sandboxed:
        pytest.fail(f"no sandbox on this machine: {sandbox.probe().reason}")
    workdir = tmp_path / "w"
    workdir.mkdir(exist_ok=True)
    os.chmod(workdir, 0o777)
    argv = sandbox.bwrap_argv(workdir, sandbox.kernel_env(workdir), as_root=as_root, extra_readonly=list(extra))
    proc = subprocess.run(argv + [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(os.geteuid() != 0, reason="the grader runs as root only on machines where it is root")
def test_as_root_the_kernel_is_unprivileged_and_reads_no_root_only_file(tmp_path):
    """Graded by root, does the kernel run as an unprivileged user with no capabilities, see no
    /etc/shadow or /etc/gshadow, and fail to read a root-only (0600) file in a folder it can see?"""
    private = tmp_path / "in-view"
    private.mkdir()
    secret = private / "secret.txt"
    secret.write_text("root only")
    os.chmod(secret, 0o600)
    seen = _sandboxed(tmp_path, READ, "/etc/shadow", "/etc/gshadow", str(secret), "/etc/passwd", extra=[private])
    assert seen["uid"] != 0 and int(seen["caps"], 16) == 0, seen
    assert seen["/etc/shadow"] == seen["/etc/gshadow"] == "FileNotFoundError", seen
    assert seen[str(secret)] == "PermissionError", seen
    assert seen["/etc/passwd"] == "READ" and seen["/tmp"] == "WRITABLE", seen  # what programs need is there


def test_the_command_line_binds_only_what_a_kernel_needs_from_etc():
    """Root or not, is /etc bound file by file from a short list (never /etc itself, shadow or gshadow),
    and does only the root variant drop privileges inside the sandbox?"""
    for as_root in (True, False):
        argv = sandbox.bwrap_argv(Path("/tmp/w"), {}, as_root=as_root)
        bound = [argv[i + 1] for i, arg in enumerate(argv) if arg in ("--ro-bind", "--bind")]
        etc = [path for path in bound if path == "/etc" or path.startswith("/etc/")]
        assert etc and "/etc" not in etc and all(p.split("/")[2] in sandbox.ETC_ENTRIES for p in etc), etc
        assert not any("shadow" in path for path in bound)
        start = argv[argv.index("--") + 1:]
        assert (start[-2:] == [str(sandbox.KERNEL_UID), str(sandbox.KERNEL_GID)]) == as_root, start
        assert ("--unshare-all" in argv) == (not as_root)  # a user namespace made by root maps to root


def test_code_that_lives_under_tmp_is_visible_in_the_sandbox(tmp_path):
    """With Python code in a folder under /tmp (a course clone or venv there), does the sandbox still
    see it: is the private /tmp mounted before it, not over it?"""
    assert str(tmp_path).startswith("/tmp/"), tmp_path
    package = tmp_path / "clone" / "lib"
    package.mkdir(parents=True)
    (package / "course_module.py").write_text("ANSWER = 42\n")
    code = (f"import json, os, sys; sys.path.insert(0, {str(package)!r}); import course_module; "
            "print(json.dumps({'answer': course_module.ANSWER, 'tmp': sorted(os.listdir('/tmp'))}))")
    seen = _sandboxed(tmp_path, code, extra=[package])
    assert seen["answer"] == 42
    argv = sandbox.bwrap_argv(tmp_path, {}, extra_readonly=[package])
    tmpfs = argv.index("/tmp", argv.index("--tmpfs"))
    assert all(i > tmpfs for i, arg in enumerate(argv) if arg.startswith("/tmp/")), argv


def _launch(tmp_path: Path, cgroups: list[Path], code: str, limits: sandbox.Limits) -> tuple[dict, str]:
    workdir = tmp_path / "w"
    workdir.mkdir(exist_ok=True)
    config = tmp_path / "launch.json"
    sandbox.write_launch_config(config, workdir=workdir, limits=limits, sandboxed=False, cgroups=cgroups)
    out = subprocess.run(sandbox.launcher_argv(config) + [sys.executable, "-c", code], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    return sandbox.read_applied(config, cgroups, False, limits), out


def test_the_launcher_reports_the_cgroups_it_could_not_join(tmp_path):
    """When a kernel's cgroup is gone before the launcher joins it, does the record of what was applied
    say no cgroup limit, rather than what was intended?"""
    gone = tmp_path / "no-such-cgroup"
    applied, _ = _launch(tmp_path, [gone], "pass", sandbox.Limits())
    assert applied["launched"] and applied["rlimits"] and applied["cgroup"] == [], applied


BUSY = """
import resource, threading, time
def spin():
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        pass
threads = [threading.Thread(target=spin) for _ in range(2)]
[t.start() for t in threads]
[t.join() for t in threads]
print(resource.getrusage(resource.RUSAGE_SELF).ru_utime + resource.getrusage(resource.RUSAGE_SELF).ru_stime)
"""


def test_a_kernel_gets_no_more_than_its_cpu_share(tmp_path):
    """With a CPU share of a fifth of a core, do two busy threads spinning for two seconds of wall time
    get about 0.4 s of CPU between them (not the up to 4 s two free cores would give), and does the
    record of what was applied say so?"""
    if sandbox._cgroup_kind() is None:
        pytest.fail("no writable cgroup on this machine: the CPU share cannot be applied (the report says so)")
    limits = sandbox.Limits(cpu_cores=0.2)
    cgroups = sandbox.make_cgroups(f"jbj-test-{os.getpid()}-{time.monotonic_ns()}", limits)
    try:
        applied, out = _launch(tmp_path, cgroups, BUSY, limits)
    finally:
        sandbox.remove_cgroups(cgroups)
    assert "cpu" in applied["cgroup"], applied
    assert float(out) < 0.8, out  # 0.2 core x 2 s, with room for the period's rounding


@pytest.mark.parametrize("cores", [0.25, 1.5])
def test_a_kernel_reports_the_cpu_share_its_limits_asked_for(tmp_path, cores):
    """Does the record of what was applied to a kernel give the CPU quota its cgroup really holds (quota over
    period, read back from the cgroup), equal to the share of cores the limits asked for?"""
    if sandbox.probe().cgroups is None:
        pytest.skip("the sandbox probe found no writable cgroup here, so no CPU share can be applied")
    limits = sandbox.Limits(cpu_cores=cores)
    cgroups = sandbox.make_cgroups(f"jbj-test-{os.getpid()}-{time.monotonic_ns()}", limits)
    try:
        applied, _ = _launch(tmp_path, cgroups, "pass", limits)
    finally:
        sandbox.remove_cgroups(cgroups)
    assert "cpu" in applied["cgroup"] and applied["cpu_cores"] == cores, applied


def test_a_kernel_without_a_cpu_cgroup_reports_no_cpu_share(tmp_path):
    """When a kernel joins no cgroup, does the record of what was applied say no CPU share (None), rather
    than the share the limits asked for?"""
    applied, _ = _launch(tmp_path, [], "pass", sandbox.Limits(cpu_cores=0.25))
    assert applied["launched"] and applied["cpu_cores"] is None, applied


CLONE_KERNEL = """
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
import nbformat
from grader.autograde import kernel, sandbox
from grader.course import repo_root
assert str(repo_root()) == sys.argv[1], repo_root()
tmp = Path(sys.argv[2])
(tmp / "w").mkdir()
(tmp / "c").mkdir()
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
    "import grader\\nfrom grader import checks\\nprint(grader.__file__)")])
result = kernel.run(nb, tmp / "w", sandbox.Limits(cell_seconds=60, notebook_seconds=120), sandboxed=True,
                    control=tmp / "c", private=True)
print(result.reason or "".join(out.get("text", "") for out in result.nb.cells[0].outputs))
"""


@pytest.mark.slow
def test_a_course_cloned_under_tmp_grades_in_the_sandbox(tmp_path):
    """With the course's package in a clone under /tmp, does a sandboxed grading kernel start and
    import the package from that clone (not hidden by the sandbox's private /tmp)?"""
    import shutil

    from conftest import ROOT

    if not sandbox.probe().sandboxed:
        pytest.fail(f"no sandbox on this machine: {sandbox.probe().reason}")
    clone = tmp_path / "clone"
    shutil.copytree(ROOT / "grader", clone / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "cpp", clone / "cpp")
    (tmp_path / "run").mkdir()
    proc = subprocess.run([sys.executable, "-c", CLONE_KERNEL, str(clone), str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == str(clone / "grader" / "__init__.py"), proc.stdout[-2000:]


def test_cgroups_left_by_a_killed_job_are_swept(tmp_path):
    """When a grading process dies before removing its cgroups (killed at its deadline), are they removed
    afterwards, while those of a live process are kept?"""
    if sandbox._cgroup_kind() is None:
        pytest.fail("no writable cgroup on this machine: there is nothing to sweep (the report says so)")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    left = sandbox.make_cgroups(f"jbj-{dead}-{time.monotonic_ns()}", sandbox.Limits())
    live = sandbox.make_cgroups(f"jbj-{os.getpid()}-{time.monotonic_ns()}", sandbox.Limits())
    try:
        assert left and all(folder.exists() for folder in left)
        sandbox.sweep_cgroups()
        assert not any(folder.exists() for folder in left), left
        assert all(folder.exists() for folder in live), live
    finally:
        sandbox.remove_cgroups(left + live)


#: Every folder a kernel can add a file to, with its filesystem's type and size: each writable mount is walked
#: (not into other mounts), and a folder counts when an unnamed file can be made in it.
WRITABLE = r"""
import errno, json, os
mounts = []
for line in open('/proc/self/mountinfo'):
    fields = line.split()
    mounts.append((fields[4], fields[5].split(',')[0], fields[fields.index('-') + 1]))
found = {}
for point, mode, kind in mounts:
    if mode != 'rw' or kind in ('proc', 'sysfs') or not os.path.isdir(point):
        continue
    device = os.stat(point).st_dev
    for top, folders, _ in os.walk(point):
        folders[:] = [f for f in folders if os.lstat(os.path.join(top, f)).st_dev == device]
        try:
            os.close(os.open(top, os.O_TMPFILE | os.O_WRONLY, 0o600))
        except OSError as err:
            if err.errno != errno.EOPNOTSUPP:
                continue
            try:  # a filesystem without unnamed files: a named one, removed at once
                os.close(os.open(os.path.join(top, '.probe'), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                os.unlink(os.path.join(top, '.probe'))
            except OSError:
                continue
        size = os.statvfs(top)
        found[top] = [kind, size.f_blocks * size.f_frsize]
print(json.dumps(found))
"""


@pytest.mark.slow
def test_grader_check_in_a_class_bounds_every_place_its_kernel_can_write(tmp_path, monkeypatch):
    """`grader check` in a class (no solutions/: the notebook's visible self-checks run in a kernel it starts
    itself): is every folder that kernel can add a file to a tmpfs within the disk budget, its sockets folder
    (`.kernel`) one of `sandbox.RUNTIME_BYTES`, while the self-check still passes?"""
    from grader.autograde import kernel
    from grader.check import score
    from test_worker import ANSWER, CHAPTER, _notebook

    if not sandbox.probe().sandboxed:
        pytest.fail(f"no sandbox on this machine: {sandbox.probe().reason}")
    budget = 24 << 20
    course = tmp_path / "course"
    (course / "notebooks" / CHAPTER).mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(f"c = get_config()\nc.GradingLimits.disk_bytes = {budget}\n")
    nb = _notebook(ANSWER)
    nb.cells.insert(1, nbformat.v4.new_code_cell(WRITABLE))
    notebook = course / "notebooks" / CHAPTER / f"{CHAPTER}.ipynb"
    nbformat.write(nb, notebook)
    runs = []
    real = kernel.run
    monkeypatch.setattr(kernel, "run", lambda *args, **kwargs: runs.append(real(*args, **kwargs)) or runs[-1])
    results = [r for r in score(notebook, root=course) if r.grade_id]
    assert [(r.points, r.max_points, r.visible_only) for r in results] == [(1, 1, True)], results
    (run,) = runs
    found = json.loads("".join(out.get("text", "") for out in run.nb.cells[1].outputs).strip().splitlines()[-1])
    workdir = next(folder for folder in found if folder.endswith("/w"))
    assert {workdir, "/tmp", f"{workdir}/.kernel", "/dev/shm"} <= found.keys(), found
    unbounded = {folder: seen for folder, seen in found.items() if seen[0] != "tmpfs" or seen[1] > budget}
    assert not unbounded, unbounded
    assert found[f"{workdir}/.kernel"][1] <= sandbox.RUNTIME_BYTES, found


def test_a_launcher_that_cannot_bound_the_sockets_folder_says_why_and_stays_as_it_was(tmp_path):
    """When the sockets folder cannot get its tmpfs (here it does not exist), does the launcher's attempt
    say why, leave the grader's link alone and leave the launcher in the mount namespace it started in
    (the attempt is made in a child first), so that the kernel can still start?"""
    code = ("import json, os, sys\n"
            f"sys.path.insert(0, {str(sandbox.LAUNCHER.parent)!r})\n"
            "import launch\n"
            "before = os.stat('/proc/self/ns/mnt').st_ino\n"
            "why = launch.bound_runtime(sys.argv[1], sys.argv[2], 1 << 20, 64)\n"
            "print(json.dumps([why, os.stat('/proc/self/ns/mnt').st_ino == before]))\n")
    link = tmp_path / "sockets"
    link.symlink_to(tmp_path / "elsewhere")
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(tmp_path / "missing"), str(link)],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    why, same = json.loads(out)
    assert why == "no tmpfs could be mounted for it (No such file or directory)" and same, out
    assert os.readlink(link) == str(tmp_path / "elsewhere")
