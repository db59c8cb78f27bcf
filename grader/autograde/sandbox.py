"""A sandboxed Jupyter kernel for grading: bubblewrap for isolation, rlimits and cgroups for limits.

The kernel of a submission sees a filesystem made of read-only system folders, the few files of
/etc a program needs (no /etc/shadow), the Python installation, the course's `grader` package
and `cpp/` headers, a private /tmp and one writable folder: its own copy of the submission, both
of a limited size, and in it the folder of its sockets, a small tmpfs of its own (`launch.bound_runtime`).
Nothing else is writable, and nothing it writes reaches the grader's disk. It cannot make a user
namespace (`launch.refuse_user_namespaces`), in which it would hold the capabilities to mount more.
No network (it talks to the grader over Unix sockets), its own process tree.
When the grader runs as root, the kernel does not: bubblewrap builds the sandbox as root, then
the kernel drops to an unprivileged user (nobody) with no capabilities before it starts, so a
file only root may read stays unreadable, wherever it is. Limits: address space, CPU seconds,
file size, and (where the machine lets us make a cgroup) the number of processes, the memory of
the whole tree and a share of the CPU. Wall time per cell and per notebook, and output bytes,
are enforced by the grader (`grader.autograde.kernel`).

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


def _limit(default: float, help: str, flag: str, unit: str = "", scale: int = 1):
    """A field of `Limits`: its default (in the field's unit: seconds, bytes, a count), what it limits
    (the command line's help text), its command-line flag and the flag's unit, `scale` of the field's."""
    return field(default=default, metadata={"help": help, "flag": flag, "unit": unit, "scale": scale})


@dataclass(frozen=True)
class Limits:
    """Per-submission limits. Times in seconds, sizes in bytes.

    Each limit is defined here alone: its default, its help text and its flag. `grader autograde` takes
    each as a flag, and the course's nbgrader_config.py as `c.GradingLimits.<name>` in these units
    (`grader.autograde.config`)."""

    cell_seconds: float = _limit(120.0, "seconds one cell may run before it is interrupted", "--cell-timeout", "s")
    notebook_seconds: float = _limit(600.0, "seconds one notebook may run in all", "--notebook-timeout", "s")
    cpu_seconds: int = _limit(900, "CPU seconds one kernel may use in all", "--cpu-seconds", "s")
    memory_bytes: int = _limit(4 << 30, "memory per kernel in MiB: its address space, and its whole process "
                                        "tree's where a cgroup can be made", "--memory-mb", "MiB", 1 << 20)
    file_bytes: int = _limit(256 << 20, "the largest file a kernel may write, in MiB", "--file-mb", "MiB", 1 << 20)
    output_bytes_per_cell: int = _limit(1 << 20, "output one cell may print, in KiB (the rest is cut)",
                                        "--cell-output-kb", "KiB", 1 << 10)
    output_bytes: int = _limit(16 << 20, "output one notebook may send in all, every kind of message (printed "
                                         "text, errors, displays, widgets), in MiB", "--output-mb", "MiB", 1 << 20)
    # Threads count too: JAX starts pools sized by the cores.
    processes: int = _limit(1024, "processes and threads per kernel, where a cgroup can be made", "--processes")
    cpu_cores: float = _limit(1.0, "the CPU share of one kernel, in cores, where a cgroup can be made",
                              "--cpu-cores", "cores")
    # Held in RAM: counted in the memory limit.
    disk_bytes: int = _limit(1 << 30, "disk per kernel in MiB: its folder and its /tmp, each (held in RAM)",
                             "--disk-mb", "MiB", 1 << 20)


@dataclass
class Probe:
    """Can this machine make a sandbox (and if not, why), and which cgroups can it make."""

    sandboxed: bool
    reason: str  # why not, when not
    cgroups: str | None = None  # "v1" or "v2" when process, memory and CPU limits can be set


#: The unprivileged user a kernel runs as when the grader is root (nobody on Debian and Ubuntu).
KERNEL_UID = KERNEL_GID = 65534

#: System folders bound read-only as they are.
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32")

#: The files of /etc a kernel and a compiler need; the rest of /etc (shadow, ssh keys, the
#: machine's secrets) is not in the sandbox at all.
ETC_ENTRIES = ("passwd", "group", "nsswitch.conf", "hosts", "host.conf", "localtime", "timezone",
               "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates",
               "mime.types", "os-release", "debian_version", "fonts", "python3", "gai.conf", "protocols",
               "services")


def runs_as_root() -> bool:
    return os.geteuid() == 0


def _system_binds() -> list[str]:
    args = []
    for path in SYSTEM_FOLDERS:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    for name in ETC_ENTRIES:
        path = f"/etc/{name}"
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def _python_paths() -> list[Path]:
    """The interpreter, its standard library and the venv, where they are (outside the system folders)."""
    paths = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), Path(sys.prefix)}
    paths.add(Path(sys.executable).resolve().parent.parent)
    return sorted((p for p in paths if not str(p).startswith(("/usr/", "/bin/", "/lib")) and p.exists()),
                  key=lambda p: len(str(p)))


def readonly_paths(root: Path | None = None) -> list[Path]:
    """What a kernel reads besides the system: Python, the course package and its C++ headers.
    Not solutions/, the gradebook or submitted/."""
    root = root or repo_root()
    paths = _python_paths() + [root / "grader"]
    if (root / "cpp").is_dir():
        paths.append(root / "cpp")
    return paths


def _parent_folders(paths: list[Path]) -> list[str]:
    """`--dir` for each folder above a bound path that bubblewrap would otherwise make itself:
    it makes them 0700, which an unprivileged kernel could not pass through."""
    folders = set()
    for path in paths:
        for parent in Path(path).parents:
            text = str(parent)
            if text not in ("/", "/tmp") and not any(text == c or text.startswith(c + "/") for c in SYSTEM_FOLDERS):
                folders.add(text)
    args = []
    for folder in sorted(folders, key=lambda f: (f.count("/"), f)):
        args += ["--perms", "0755", "--dir", folder]
    return args


#: Where a kernel's own folder is seen read-only, to be copied into its size-limited folder.
SEED = "/tmp/.submission"

#: Run inside the sandbox before the kernel: `python -I -S -c KERNEL_START SEED UID GID ARGV...`.
#: `launch.enter_folder` with SEED (the kernel's folder is then a private copy) and UID and GID (the
#: grader is root), each "-" when not given; then refuse new user namespaces and start the kernel.
KERNEL_START = (
    "import os, sys\n"
    f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
    "import launch\n"
    "seed, uid, gid = (None if a == '-' else a for a in sys.argv[1:4])\n"
    "launch.enter_folder(seed, uid and int(uid), gid and int(gid))\n"
    "launch.refuse_user_namespaces()\n"
    "os.execv(sys.argv[4], sys.argv[4:])\n"
)

#: The kernel's sockets folder (`.kernel` in its folder: its sockets, the connection file, the checks'
#: progress note) is a tmpfs of this many bytes and files (`launch.bound_runtime`).
RUNTIME_BYTES, RUNTIME_FILES = 1 << 20, 64


def shm_bytes(limits: Limits) -> int:
    """The size of a kernel's /dev/shm: 64 MiB (what Docker gives a container), or its disk budget if smaller."""
    return min(64 << 20, limits.disk_bytes)


#: The name, in the grader's settings folder of a kernel, of the link through which the grader reaches
#: the kernel's sockets folder (`launch.bound_runtime`).
RUNTIME_LINK = "sockets"


def bwrap_argv(workdir: Path, env: dict[str, str], *, limits: "Limits | None" = None,
               as_root: bool | None = None, extra_readonly: list[Path] = (), private: bool = False) -> list[str]:
    """bubblewrap's command line for a kernel whose only writable folder is `workdir`.

    The kernel's command follows it. Order matters: bubblewrap mounts in order, so the private
    /tmp comes first and whatever lives under /tmp (a course, a venv) is bound over it after.
    With `private`, the kernel's folder is a tmpfs of `limits.disk_bytes` holding a copy of
    `workdir` (its `.kernel` sockets folder is bound in): what the kernel writes there never
    reaches the grader's disk. Without it, `workdir` itself is bound, and the grader sees what
    the kernel wrote (the reference run, whose caches later kernels start from). The sandbox's own
    root and /dev are made read-only last (/dev/shm is a small tmpfs of its own): a kernel that owns
    them (without root, in a user namespace) could otherwise fill them, as they have no size limit."""
    limits = limits or Limits()
    as_root = runs_as_root() if as_root is None else as_root
    argv = ["bwrap", "--die-with-parent", "--new-session"]
    if as_root:
        # No user namespace: one made by root maps the kernel to root outside. The kernel's
        # user is changed inside instead (KERNEL_START), after the mounts are made.
        argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    else:
        argv += ["--unshare-all"]
    argv += ["--perms", "1777", "--size", str(limits.disk_bytes), "--tmpfs", "/tmp"]
    readonly = [*readonly_paths(), *map(Path, extra_readonly)]
    argv += _parent_folders([*readonly, workdir, Path("/etc/passwd")])
    argv += _system_binds()
    for path in readonly:
        argv += ["--ro-bind", str(path), str(path)]
    # /dev/shm (POSIX shared memory and semaphores: Python's multiprocessing) is a tmpfs of its own, bounded.
    argv += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(shm_bytes(limits)), "--tmpfs", "/dev/shm"]
    if private:
        argv += ["--size", str(limits.disk_bytes), "--tmpfs", str(workdir), "--ro-bind", str(workdir), SEED]
        if (workdir / ".kernel").is_dir():
            argv += ["--bind", str(workdir / ".kernel"), str(workdir / ".kernel")]
    else:
        argv += ["--bind", str(workdir), str(workdir)]
    argv += ["--remount-ro", "/", "--remount-ro", "/dev"]
    argv += ["--chdir", str(workdir), "--clearenv"]
    for key, value in env.items():
        argv += ["--setenv", key, value]
    argv += ["--", sys.executable, "-I", "-S", "-c", KERNEL_START, SEED if private else "-",
             str(KERNEL_UID) if as_root else "-", str(KERNEL_GID) if as_root else "-"]
    return argv


#: The rounds of each timing comparison in a grading kernel (`compute_env`).
GRADING_TIMING_ROUNDS = 3


def compute_env(jax_cache: Path) -> dict[str, str]:
    """How a grading kernel computes: JAX on the CPU, its math on one thread, its compilations kept
    in `jax_cache`, its timings short. A kernel given the same entries (and the same JAX) compiles
    the same programs under the same cache keys, so each can load what the other compiled."""
    return {
        "JAX_PLATFORMS": "cpu",
        # Compilations are kept in the kernel's own folder, which the grader seeds with what the
        # reference run compiled before its first answer cell (`grader.autograde`): the chapter's
        # demonstrations are then loaded, not compiled again, in every submission.
        "JAX_COMPILATION_CACHE_DIR": str(jax_cache),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        # One submission per core: keep each kernel's math on one thread.
        "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false",
        # Nobody reads a graded notebook's timings (printed, never asserted): each comparison of
        # grader.timing runs a few rounds instead of tens (grader.notebook.timing.ROUNDS_ENV).
        "JBJ_TIMING_ROUNDS": str(GRADING_TIMING_ROUNDS),
        "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    }


#: The file in a kernel's `.kernel` folder where the checks note their running check (`grader.autograde.kernel`).
PROGRESS_FILE = "check-progress.json"


def kernel_env(workdir: Path, *, record: bool = True) -> dict[str, str]:
    """The kernel's whole environment: nothing is inherited from the grader's.

    `record`: the checks record for verdicts made outside the kernel (grading); without it they
    judge in the kernel, as in a learner's own session (`grader check` without solutions/)."""
    venv_bin = str(Path(sys.executable).parent)
    env = {
        "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(workdir), "IPYTHONDIR": str(workdir / ".ipython"), "MPLCONFIGDIR": str(workdir / ".mpl"),
        "TMPDIR": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
        # The course package the sandbox binds (`readonly_paths`), first on the kernel's path.
        "PYTHONPATH": str(repo_root()),
        "JBJ_RECORD": "1", "JBJ_BUILD_CACHE": str(workdir / ".build-cache"),
        # Where the checks note their running check (grader.notebook.checks.PROGRESS_ENV): in the folder of the
        # kernel's sockets, which the grader sees also when the kernel's own folder is private.
        "JBJ_CHECK_PROGRESS": str(workdir / ".kernel" / PROGRESS_FILE),
        **compute_env(workdir / ".jax-cache"),
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


#: The per-kernel cgroup settings, by controller (v1 file names; v2 names are in `_V2`).
def _settings_v1(limits: Limits) -> dict[str, dict[str, str]]:
    period = 100_000
    return {"pids": {"pids.max": str(limits.processes)},
            "memory": {"memory.limit_in_bytes": str(limits.memory_bytes)},
            "cpu": {"cpu.cfs_period_us": str(period), "cpu.cfs_quota_us": str(max(1000, int(limits.cpu_cores * period)))}}


def make_cgroups(name: str, limits: Limits) -> list[Path]:
    """Create cgroups limiting processes, memory and CPU; returns their folders.

    Each controller is tried on its own: the ones the machine refuses are left out (the report
    says which were applied, from what the launcher really joined)."""
    kind = _cgroup_kind()  # not probe(): that starts a whole sandbox, and this runs once per kernel
    made = []
    if kind == "v1":
        for controller, settings in _settings_v1(limits).items():
            folder = _own_cgroup_v1(controller) / name
            try:
                folder.mkdir()
            except OSError:
                continue
            try:
                for key, value in settings.items():
                    (folder / key).write_text(value)
            except OSError:
                remove_cgroups([folder])
                continue
            made.append(folder)
    elif kind == "v2":
        own = Path("/proc/self/cgroup").read_text().strip().split("::", 1)[-1].lstrip("/")
        folder = Path("/sys/fs/cgroup") / own / name
        try:
            folder.mkdir()
            (folder / "pids.max").write_text(str(limits.processes))
            (folder / "memory.max").write_text(str(limits.memory_bytes))
            try:
                (folder / "cpu.max").write_text(f"{max(1000, int(limits.cpu_cores * 100_000))} 100000")
            except OSError:
                pass  # no cpu controller delegated here: the report says so
            made.append(folder)
        except OSError:
            remove_cgroups([folder])
    return made


def controllers(folder: Path) -> list[str]:
    """The limits a cgroup folder sets, in the report's words: "processes", "memory", "cpu"."""
    names = {"pids": "processes", "memory": "memory", "cpu": "cpu"}
    parts = Path(folder).parts  # v1: /sys/fs/cgroup/<controller>/.../<name>
    if _cgroup_kind() == "v1":
        return [names[parts[4]]] if len(parts) > 4 and parts[4] in names else []
    found = []
    for file, name in (("pids.max", "processes"), ("memory.max", "memory"), ("cpu.max", "cpu")):
        try:
            if (Path(folder) / file).read_text().split()[0] != "max":
                found.append(name)
        except (OSError, IndexError):
            pass
    return found


def cpu_share(folder: Path) -> float | None:
    """The share of the CPU (in cores: quota over period) a cgroup folder sets, or None if it sets none."""
    try:
        if _cgroup_kind() == "v1":
            quota, period = ((Path(folder) / f"cpu.cfs_{name}_us").read_text().strip() for name in ("quota", "period"))
        else:
            quota, period = (Path(folder) / "cpu.max").read_text().split()
        return int(quota) / int(period) if quota not in ("max", "-1") else None
    except (OSError, ValueError, ZeroDivisionError):
        return None


def process_limit_reached(folders: list[Path]) -> bool:
    """Did a fork or thread ever fail for the process limit of these cgroups?"""
    for folder in folders:
        try:
            events = (folder / "pids.events").read_text().split()
        except OSError:
            continue
        if "max" in events and int(events[events.index("max") + 1]) > 0:
            return True
    return False


def sweep_cgroups() -> int:
    """Remove the empty cgroups of grading processes that died before removing their own (a job
    killed at its deadline, say); returns how many. Named `jbj-<pid>-…`, so live ones are kept."""
    kind, removed = _cgroup_kind(), 0
    if kind == "v1":
        parents = [_own_cgroup_v1(controller) for controller in ("pids", "memory", "cpu")]
    elif kind == "v2":
        parents = [Path("/sys/fs/cgroup") / Path("/proc/self/cgroup").read_text().strip().split("::", 1)[-1].lstrip("/")]
    else:
        return 0
    for parent in parents:
        try:
            children = [p for p in parent.iterdir() if p.is_dir() and p.name.startswith("jbj-")]
        except OSError:
            continue
        for folder in children:
            pid = folder.name.split("-")[1]
            if not pid.isdigit() or Path(f"/proc/{pid}").exists():
                continue
            try:
                folder.rmdir()  # fails, and is left alone, if a process is still in it
                removed += 1
            except OSError:
                pass
    return removed


def remove_cgroups(folders: list[Path]) -> None:
    for folder in folders:
        try:
            procs = (folder / "cgroup.procs").read_text().split()
        except OSError:
            continue
        for pid in procs:
            try:
                os.kill(int(pid), 9)
            except OSError:
                pass
        # A killed process leaves its cgroup only once it is reaped: try for a moment.
        for _ in range(50):
            try:
                folder.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                import time

                time.sleep(0.02)


# ---- the launcher: the first program in the kernel's argv ---------------------------------

LAUNCHER = Path(__file__).with_name("launch.py")


def launcher_argv(config: Path) -> list[str]:
    """How the kernelspec starts a kernel: `launch.py` applies the limits, then execs the kernel.

    `-I -S`: no site-packages and no environment variables, so it starts in milliseconds."""
    return [sys.executable, "-I", "-S", str(LAUNCHER), str(config)]


def write_launch_config(path: Path, *, workdir: Path, limits: Limits, sandboxed: bool,
                        cgroups: list[Path], record: bool = True, private: bool = False,
                        zygote: Path | None = None) -> None:
    """Everything `launch.py` needs, worked out here so that it needs nothing else. With `zygote` (its
    socket) and a sandbox, the launcher asks that zygote for the kernel (`grader.autograde.zygote`). With a
    sandbox, the launcher puts the kernel's sockets folder on a tmpfs of its own, which the grader reaches
    through the link `RUNTIME_LINK` beside `path` (`launch.bound_runtime`)."""
    env = kernel_env(workdir, record=record)
    config = {
        "workdir": str(workdir), "env": env, "prefix": bwrap_argv(workdir, env, limits=limits, private=private) if sandboxed else [],
        "cgroups": [str(c) for c in cgroups], "memory_bytes": limits.memory_bytes,
        "cpu_seconds": limits.cpu_seconds, "file_bytes": limits.file_bytes,
        "applied": str(applied_path(path))}
    if sandboxed:
        config["runtime"] = {"folder": str(workdir / ".kernel"), "link": str(Path(path).parent / RUNTIME_LINK),
                             "bytes": RUNTIME_BYTES, "inodes": RUNTIME_FILES}
    if sandboxed and zygote is not None:
        as_root = runs_as_root()
        config["zygote"] = {"socket": str(zygote), "request": {
            # What `KERNEL_START` does inside the sandbox, the zygote's kernel does too.
            "workdir": str(workdir), "seed": SEED if private else None, "env": env,
            "uid": KERNEL_UID if as_root else None, "gid": KERNEL_GID if as_root else None,
            "rlimits": {"memory_bytes": limits.memory_bytes, "cpu_seconds": limits.cpu_seconds,
                        "file_bytes": limits.file_bytes}}}
    path.write_text(json.dumps(config))


def applied_path(config: Path) -> Path:
    """Where the launcher writes what it really applied (next to its settings)."""
    return Path(config).with_suffix(".applied.json")


def read_applied(config: Path, cgroups: list[Path], sandboxed: bool, limits: Limits, private: bool = False) -> dict:
    """What was really applied to a kernel: the launcher's own account, in the report's words."""
    try:
        launched = json.loads(applied_path(config).read_text())
    except (OSError, ValueError):
        return {"launched": False}
    joined = [Path(c) for c in launched.get("joined", [])]
    return {"launched": True, "sandbox": sandboxed, "unprivileged": sandboxed or not runs_as_root(),
            "rlimits": bool(launched.get("rlimits")),
            "cgroup": sorted({name for folder in joined for name in controllers(folder)}),
            # The CPU share as the kernel's cgroup holds it, not as asked for (None: no share applied).
            "cpu_cores": next((share for folder in joined if (share := cpu_share(folder)) is not None), None),
            "disk": limits.disk_bytes if sandboxed else None,
            # Its own folder a private tmpfs, and its sockets folder a tmpfs too: nothing it wrote reached the disk.
            "folder_limited": sandboxed and private and launched.get("runtime") == "bounded",
            # Why its sockets folder stayed on the grader's disk, when it did.
            "runtime": None if not sandboxed or launched.get("runtime") == "bounded" else launched.get("runtime"),
            # Forked by a zygote (`grader.autograde.zygote`), or why not, when one was asked.
            "forked": launched.get("zygote") == "joined",
            "not_forked": None if launched.get("zygote") in (None, "joined") else launched["zygote"]}
