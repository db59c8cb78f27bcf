"""A sandboxed Jupyter kernel for grading: bubblewrap for isolation, rlimits and cgroups for limits.

The kernel of a submission sees a filesystem made of read-only system folders, the Python
installation, the course's `grader` package and `cpp/` headers, and one writable folder: its own
copy of the submission. No network (it talks to the grader over Unix sockets), a private /tmp,
its own process tree. Limits: address space, CPU seconds, file size, and (where the machine lets
us make a cgroup) the number of processes and the memory of the whole tree. Wall time per cell
and per notebook, and output bytes, are enforced by the grader (`grader.runner`).

Where bubblewrap is missing or not permitted, `probe()` says why and the kernel runs with the
rlimits only; the autograde report then says so at its top.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from grader.course import repo_root


@dataclass(frozen=True)
class Limits:
    """Per-submission limits. Times in seconds, sizes in bytes."""

    cell_seconds: float = 120.0
    notebook_seconds: float = 600.0
    cpu_seconds: int = 900
    memory_bytes: int = 4 << 30
    file_bytes: int = 256 << 20
    output_bytes_per_cell: int = 1 << 20
    processes: int = 1024  # threads count too: JAX starts pools sized by the cores


@dataclass
class Probe:
    sandboxed: bool
    reason: str  # why not, when not
    cgroups: str | None = None  # "v1" or "v2" when process and memory limits can be set
    details: list[str] = field(default_factory=list)


def _system_binds() -> list[str]:
    args = []
    for path in ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc"):
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def _python_binds() -> list[str]:
    """The interpreter, its standard library and the venv, bound read-only where they are."""
    paths = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), Path(sys.prefix)}
    exe = Path(sys.executable)
    paths.add(exe.resolve().parent.parent)
    args = []
    for path in sorted(paths, key=lambda p: len(str(p))):
        if not str(path).startswith(("/usr/", "/bin/", "/lib")) and path.exists():
            args += ["--ro-bind", str(path), str(path)]
    return args


def bwrap_argv(workdir: Path, env: dict[str, str]) -> list[str]:
    """bubblewrap's command line for a kernel whose only writable folder is `workdir`."""
    root = repo_root()
    argv = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
    if os.geteuid() == 0:
        # As root, run the kernel as an ordinary user id inside its own user namespace.
        argv += ["--unshare-user", "--uid", "1000", "--gid", "1000"]
    argv += _system_binds() + _python_binds()
    # The course package and the C++ headers it builds against; not solutions/ or the gradebook.
    argv += ["--ro-bind", str(root / "grader"), str(root / "grader")]
    if (root / "cpp").is_dir():
        argv += ["--ro-bind", str(root / "cpp"), str(root / "cpp")]
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
             "--bind", str(workdir), str(workdir), "--chdir", str(workdir), "--clearenv"]
    for key, value in env.items():
        argv += ["--setenv", key, value]
    return argv


def kernel_env(workdir: Path, *, record: bool = True) -> dict[str, str]:
    """The kernel's whole environment: nothing is inherited from the grader's.

    `record`: the checks record for verdicts made outside the kernel (grading); without it they
    judge in the kernel, as in a learner's own session (`grader check` without solutions/)."""
    venv_bin = str(Path(sys.executable).parent)
    env = {
        "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(workdir), "IPYTHONDIR": str(workdir / ".ipython"), "MPLCONFIGDIR": str(workdir / ".mpl"),
        "TMPDIR": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
        "JBJ_RECORD": "1", "JBJ_BUILD_CACHE": str(workdir / ".build-cache"),
        "JAX_PLATFORMS": "cpu",
        # Compilations are kept in the kernel's own folder, which the grader seeds with what the
        # reference run compiled before its first answer cell (`grader.autograde`): the chapter's
        # demonstrations are then loaded, not compiled again, in every submission.
        "JAX_COMPILATION_CACHE_DIR": str(workdir / ".jax-cache"),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        # One submission per core: keep each kernel's math on one thread.
        "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
        "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        # ipykernel stops when its parent pid changes; in a new pid namespace it always looks changed.
        "JPY_PARENT_PID": "",
    }
    if not record:
        del env["JBJ_RECORD"]
    return env


@lru_cache(maxsize=1)
def probe() -> Probe:
    """Can this machine run a sandboxed kernel? Tried once per process, by really starting one."""
    cg = _cgroup_kind()
    if shutil.which("bwrap") is None:
        return Probe(False, "bubblewrap (bwrap) is not installed; on Debian or Ubuntu: "
                            "sudo apt-get install bubblewrap", cg)
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"jbj-probe-{uuid.uuid4().hex[:8]}"
    workdir.mkdir(mode=0o700)
    try:
        argv = bwrap_argv(workdir, kernel_env(workdir)) + [sys.executable, "-c", "import grader, numpy"]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            first = (proc.stderr.strip().splitlines() or ["no message"])[-1]
            return Probe(False, f"bubblewrap could not start a sandbox here ({first}); user namespaces may be "
                                "disabled (sysctl kernel.unprivileged_userns_clone=1)", cg)
    except (OSError, subprocess.TimeoutExpired) as err:
        return Probe(False, f"bubblewrap failed to run: {err}", cg)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return Probe(True, "", cg)


# ---- cgroups: limits on the whole process tree, where the machine lets us make one ----------

@lru_cache(maxsize=1)
def _cgroup_kind() -> str | None:
    try:
        if Path("/sys/fs/cgroup/cgroup.controllers").exists():
            controllers = Path("/sys/fs/cgroup/cgroup.controllers").read_text().split()
            return "v2" if "pids" in controllers and os.access("/sys/fs/cgroup", os.W_OK) else None
        if Path("/sys/fs/cgroup/pids").is_dir() and os.access("/sys/fs/cgroup/pids", os.W_OK):
            return "v1"
    except OSError:
        return None
    return None


def _own_cgroup_v1(controller: str) -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return Path("/sys/fs/cgroup") / controller / path.lstrip("/")
    return Path("/sys/fs/cgroup") / controller


def make_cgroups(name: str, limits: Limits) -> list[Path]:
    """Create cgroups limiting processes and memory; returns their folders ([] if not possible)."""
    kind = _cgroup_kind()  # not probe(): that starts a whole sandbox, and this runs once per kernel
    made = []
    try:
        if kind == "v1":
            for controller, settings in (("pids", {"pids.max": str(limits.processes)}),
                                         ("memory", {"memory.limit_in_bytes": str(limits.memory_bytes)})):
                folder = _own_cgroup_v1(controller) / name
                folder.mkdir()
                made.append(folder)
                for key, value in settings.items():
                    (folder / key).write_text(value)
        elif kind == "v2":
            own = Path("/proc/self/cgroup").read_text().strip().split("::", 1)[-1].lstrip("/")
            folder = Path("/sys/fs/cgroup") / own / name
            folder.mkdir()
            made.append(folder)
            (folder / "pids.max").write_text(str(limits.processes))
            (folder / "memory.max").write_text(str(limits.memory_bytes))
    except OSError:
        remove_cgroups(made)
        return []
    return made


def remove_cgroups(folders: list[Path]) -> None:
    for folder in folders:
        try:
            procs = (folder / "cgroup.procs").read_text().split()
            for pid in procs:
                try:
                    os.kill(int(pid), 9)
                except OSError:
                    pass
            folder.rmdir()
        except OSError:
            pass


# ---- the launcher: the first program in the kernel's argv ---------------------------------

LAUNCHER = Path(__file__).with_name("launch.py")


def launcher_argv(config: Path) -> list[str]:
    """How the kernelspec starts a kernel: `launch.py` applies the limits, then execs the kernel.

    `-I -S`: no site-packages and no environment variables, so it starts in milliseconds."""
    return [sys.executable, "-I", "-S", str(LAUNCHER), str(config)]


def write_launch_config(path: Path, *, workdir: Path, limits: Limits, sandboxed: bool,
                        cgroups: list[Path], record: bool = True) -> None:
    """Everything `launch.py` needs, worked out here so that it needs nothing else."""
    env = kernel_env(workdir, record=record)
    path.write_text(json.dumps({
        "workdir": str(workdir), "env": env, "prefix": bwrap_argv(workdir, env) if sandboxed else [],
        "cgroups": [str(c) for c in cgroups], "memory_bytes": limits.memory_bytes,
        "cpu_seconds": limits.cpu_seconds, "file_bytes": limits.file_bytes}))
