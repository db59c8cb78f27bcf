"""A kernel zygote: JAX and ipykernel imported before a submission's kernel is asked for, then forked into it.

Every grading kernel imports the same libraries before its first cell does anything of its own:
ipykernel (about 0.3 s of CPU) and JAX (about 0.7 s). A zygote is a process that has imported both
and never runs a submission's code. Each zygote gives one kernel: a forked process keeps the string
hash seed its parent drew when it started (PYTHONHASHSEED cannot change after that), so a zygote that
forked many kernels would give them all one seed. A grading worker starts a job's zygote as the job
starts: it listens at once and imports while the job prepares the notebook and bubblewrap builds the
sandbox (a kernel asked for before the imports are done waits for them). For its kernel a zygote forks
a *joiner*, which moves into the kernel's bubblewrap sandbox, started as usual by the launcher
(`launch.py`), and forks the kernel there:

1. The joiner joins the kernel's cgroups, then the sandbox's namespaces (user, if it has one, then
   mount, PID, network, IPC, UTS and cgroup), through `/proc/PID/ns` of the sandbox's first
   process. Bubblewrap made those namespaces and their mounts: the zygote makes none of its own.
2. The kernel, forked by the joiner, is born in the sandbox's PID namespace. It does what
   `sandbox.KERNEL_START` does for a kernel that bubblewrap starts: it copies the submission into
   its private folder, drops to the kernel's user (nobody, when the grader is root) or, in a user
   namespace, drops every capability; then it takes no new privileges, refuses new user namespaces
   (`launch.refuse_user_namespaces`), sets its rlimits, closes every file it inherited, takes the
   kernel's environment, and runs ipykernel.
3. The joiner waits for the kernel and tells the launcher how it ended; the launcher ends the same
   way, so the grader reads a kernel's death as it reads one that bubblewrap started.

The zygote's memory holds nothing the kernel may not see: it is started with the kernel's own
environment, and it reads no request itself (the joiner does, after the fork). Whatever goes wrong
on this path (no zygote, a namespace it cannot join), the launcher starts the kernel the usual way.

`python -c MAIN SOCKET` runs a zygote (`start` does that); this file imports only the standard
library at its top, since the zygote runs it before it imports anything else.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

#: The namespaces a joiner enters, in order: the user namespace first, which gives the rights to
#: enter the others (when the grader is not root); PID last before the fork, which places the kernel.
NAMESPACES = ("user", "mnt", "net", "ipc", "uts", "cgroup", "pid")

#: The environment variables JAX reads when it is imported; a kernel's must equal the zygote's, or
#: the kernel would start with settings other than its own. The compilation cache's folder is the
#: exception: it is set per kernel (`_take_environment`).
PER_KERNEL_JAX = ("JAX_COMPILATION_CACHE_DIR",)

#: How a zygote runs: `python -c MAIN SOCKET`, with `sys.path` as a kernel's (no current folder).
MAIN = ("import runpy, sys\n"
        "if sys.path[0] == '':\n"
        "    del sys.path[0]\n"
        f"runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__zygote__')\n")

PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 24, 47, 4
SYS_CAPSET = 126  # x86-64


# ---- the zygote --------------------------------------------------------------------------------

def serve(path: str) -> None:
    """Listen at `path`, import what every kernel imports, then fork a joiner for the first connection, and
    end when it ends. The socket goes at that first connection: a later one is refused (the launcher then
    starts its kernel the usual way), and its owner sees that this zygote has been used (`Zygote.fresh`)."""
    global _LAUNCH
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)  # a launcher may connect now; it is answered once the imports are done
    print("listening", flush=True)
    _LAUNCH = _launcher()
    sys.modules["debugpy"] = None  # as `kernel.KERNEL_MAIN`: no debugger in a grading kernel
    before = dict(os.environ)
    import jax  # noqa: F401  (the backend starts in the kernel, never here)
    import jax.numpy  # noqa: F401
    from ipykernel import kernelapp  # noqa: F401

    # What the imports put in the environment (JAX sets a few defaults), for each kernel's own.
    _IMPORTED_ENV.update({k: v for k, v in os.environ.items() if before.get(k) != v})
    baseline = {k: v for k, v in os.environ.items() if k.startswith(("JAX_", "XLA_"))}
    print("ready", flush=True)
    conn, _ = listener.accept()
    os.unlink(path)
    listener.close()
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            code = _join(conn, baseline)
        finally:
            os._exit(code)
    conn.close()
    os.waitpid(pid, 0)  # the joiner ends when its kernel has ended


_LAUNCH = None  # launch.py, as the zygote loaded it


def _launcher():
    """`launch.py`, loaded by its path: it needs only the standard library (the kernel's imports stay
    its own: not this package's)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("jbj_launch", Path(__file__).with_name("launch.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _say(conn: socket.socket, line: str) -> None:
    try:
        conn.sendall((line + "\n").encode())
    except OSError:
        pass  # the launcher is gone: the kernel is killed with its sandbox


def _join(conn: socket.socket, baseline: dict[str, str]) -> int:
    """The joiner: read the request, enter the sandbox, fork the kernel, report how it ended."""
    try:
        data = b""
        while not data.endswith(b"\n"):
            chunk = conn.recv(1 << 16)
            if not chunk:
                raise RuntimeError("the launcher closed the connection before its request")
            data += chunk
        request = json.loads(data)
        env = request["env"]
        differs = sorted(k for k in {*baseline, *(k for k in env if k.startswith(("JAX_", "XLA_")))}
                         if k not in PER_KERNEL_JAX and baseline.get(k) != env.get(k))
        if differs:
            raise RuntimeError(f"the kernel's {', '.join(differs)} differ from the zygote's")
        for folder in request["cgroups"]:
            try:
                with open(os.path.join(folder, "cgroup.procs"), "w") as f:
                    f.write(str(os.getpid()))
            except OSError:
                pass  # as the launcher: the report says which cgroups the kernel joined
        target = request["pid"]
        # Every namespace is opened before any is entered: once in the sandbox's mount namespace,
        # /proc is the sandbox's, where the target has another number.
        entries = {}
        for kind in NAMESPACES:
            fd = os.open(f"/proc/{target}/ns/{kind}", os.O_RDONLY)
            if os.fstat(fd).st_ino == os.stat(f"/proc/self/ns/{kind}").st_ino:
                os.close(fd)  # the sandbox did not make one of its own
                continue
            expected = request["namespaces"].get(kind)
            if expected is not None and os.fstat(fd).st_ino != expected:
                raise RuntimeError(f"process {target} is no longer the sandbox's (its {kind} namespace differs)")
            entries[kind] = fd
        if not {"mnt", "pid"} <= entries.keys() or None in (request["namespaces"].get(k) for k in ("mnt", "pid")):
            raise RuntimeError("the sandbox's mount and PID namespaces were not found")
        # Entering a mount namespace leaves this process at its first root, not at the root bubblewrap
        # moved its program to (as nsenter's --root): take the sandbox's, from its first process.
        root = os.open(f"/proc/{target}/root", os.O_RDONLY | os.O_DIRECTORY)
        if os.stat(f"/proc/{target}/ns/mnt").st_ino != request["namespaces"]["mnt"]:
            raise RuntimeError(f"process {target} is no longer the sandbox's")
        for fd in entries.values():
            os.setns(fd, 0)
            os.close(fd)
        os.fchdir(root)
        os.chroot(".")
        os.close(root)
    except Exception as err:
        _say(conn, f"failed {type(err).__name__}: {err}")
        return 70
    kernel = os.fork()
    if kernel == 0:
        code = 70
        try:
            _become_kernel(conn, request)
            code = 0
        except SystemExit as done:  # as a started kernel's process would exit
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        except BaseException as err:  # noqa: BLE001 - whatever happens, this process never returns
            _say(conn, f"failed {type(err).__name__}: {err}")
        finally:
            os._exit(code)
    _, status = os.waitpid(kernel, 0)
    code = os.waitstatus_to_exitcode(status)
    _say(conn, f"exit {code}")
    return 0


def _drop_capabilities(libc) -> None:
    """In a user namespace, a process that joined it holds every capability there: give them up,
    from the bounding set too, so that no program it starts gets them back."""
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() not in (22,):  # EINVAL: no such cap
            raise OSError(ctypes.get_errno(), f"could not drop capability {cap} from the bounding set")
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: none, for both halves
    if libc.syscall(SYS_CAPSET, header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def _become_kernel(conn: socket.socket, request: dict) -> None:
    """The kernel, in the sandbox: its folder, its user, its limits, its files, then ipykernel."""
    libc = _LAUNCH._LIBC  # the C library, as launch.py loaded it (prctl, capset)
    if libc is None:
        raise OSError("no C library to set the kernel's privileges with")
    os.setsid()
    os.chdir(request["workdir"])
    _LAUNCH.enter_folder(request["seed"], request["uid"], request["gid"])  # the folder; the user, when root
    if request["uid"] is None:  # in the sandbox's user namespace, which gave this process every capability there
        _drop_capabilities(libc)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "could not set no_new_privs")
    _LAUNCH.refuse_user_namespaces()  # as `sandbox.KERNEL_START` does for a kernel that bubblewrap starts
    if int(Path("/proc/self/status").read_text().split("CapEff:")[1].split()[0], 16) != 0:
        raise RuntimeError("the kernel still holds capabilities")
    if os.getuid() == 0 and Path("/proc/self/uid_map").read_text().split() == ["0", "0", "4294967295"]:
        raise RuntimeError("the kernel would run as the machine's root")
    _LAUNCH.set_rlimits(request["rlimits"])
    _say(conn, "ok")
    conn.detach()  # its file is closed below, with every other inherited one
    null = os.open("/dev/null", os.O_RDWR)
    for std in (0, 1, 2):
        os.dup2(null, std)
    os.closerange(3, 1 << 30)  # the socket, and all else inherited
    _take_environment(request["env"], request["workdir"])
    import numpy as np

    np.random.seed()  # a fresh process draws its own seed; a forked one would share the zygote's
    from ipykernel import kernelapp

    sys.argv = ["-c", *request["argv"]]  # as `python -c KERNEL_MAIN -f FILE` has it
    kernelapp.IPKernelApp.launch_instance(argv=request["argv"])


#: The environment variables the zygote's imports set, which a started kernel's imports set too.
_IMPORTED_ENV: dict[str, str] = {}


def _take_environment(env: dict[str, str], workdir: str) -> None:
    """The kernel's environment, as a kernel that bubblewrap starts in `workdir` has it once it has
    imported JAX: its own, PWD (bubblewrap's), and what the imports set where it sets nothing."""
    os.environ.clear()
    os.environ.update({**_IMPORTED_ENV, "PWD": workdir, **env})
    import jax

    for key in PER_KERNEL_JAX:
        if key in env:
            jax.config.update(key.lower(), env[key])


if __name__ == "__zygote__":
    serve(sys.argv[1])


# ---- the grader's side -------------------------------------------------------------------------

class Zygote:
    """A running zygote: its process and the socket the launcher connects to. Processes forked from
    the one that started it (a worker's job processes) use it too; only that one stops it."""

    def __init__(self, process: subprocess.Popen, folder: Path):
        self.process, self.folder, self.owner = process, folder, os.getpid()
        self.socket = folder / "zygote.sock"
        self._ready: bool | None = None

    def ready(self) -> bool:
        """Has it imported what a kernel imports? Waits for it (its owner only)."""
        if self._ready is None:
            self._ready = os.getpid() == self.owner and self.process.stdout.readline().strip() == "ready"
        return self._ready

    def fresh(self) -> bool:
        """Can it still give a kernel: is it running, and has no launcher asked it for one yet?"""
        return self.alive() and self.socket.exists()

    def alive(self) -> bool:
        if os.getpid() == self.owner:
            return self.process.poll() is None
        try:  # not this process's child: ask the system
            return Path(f"/proc/{self.process.pid}/stat").read_text().split(") ")[1][0] not in "ZX"
        except (OSError, IndexError):
            return False

    def stop(self) -> None:
        """End it (its owner only). One that gave its kernel ends with it: it is given a moment to."""
        if os.getpid() != self.owner:
            return
        if self.process.poll() is None and not self.socket.exists():
            try:
                self.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                pass
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        shutil.rmtree(self.folder, ignore_errors=True)


#: How long `Zygote.stop` waits for a zygote that gave its kernel to end on its own: it waits for its joiner,
#: which ends with the kernel (a killed zygote would leave the joiner to the system to reap).
STOP_SECONDS = 2.0


def start() -> Zygote | None:
    """Start a zygote with a kernel's environment (no per-kernel paths), and its own string hash seed; None
    if it did not start (the kernels then start the usual way). It is returned once it listens, still
    importing (`Zygote.ready` waits for that): a kernel asked for meanwhile waits for its imports."""
    from grader.autograde import sandbox
    from grader.autograde.launch import die_with_parent

    sweep()
    # 0700: only the grader reaches the socket. Named by the process that owns it (`sweep`).
    folder = Path(tempfile.mkdtemp(prefix=f"jbj-zygote-{os.getpid()}-"))
    try:
        with open(folder / "log", "w") as log:
            process = subprocess.Popen([sys.executable, "-c", MAIN, str(folder / "zygote.sock")],
                                       env=sandbox.kernel_env(folder / "home"), cwd=folder, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=log, preexec_fn=die_with_parent, text=True)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    zygote = Zygote(process, folder)
    if process.stdout.readline().strip() != "listening":  # nothing, if it died on the way
        zygote.stop()
        return None
    return zygote


def sweep() -> int:
    """Remove the folders (a socket and a log) of zygotes whose owner died without stopping them (a
    worker killed at a job's deadline, say); returns how many. The zygote itself died with its owner."""
    removed = 0
    for folder in Path(tempfile.gettempdir()).glob("jbj-zygote-*-*"):
        owner = folder.name.split("-")[2]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists() and folder.stat().st_uid == os.getuid():
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


_SHARED: Zygote | None = None


def shared(*, start_one: bool = True) -> Zygote | None:
    """This process's zygote for the next kernel (or the one of the process it was forked from): one that has
    given no kernel yet, started now if there is none (unless `start_one` is false); None when there is none."""
    global _SHARED
    if _SHARED is not None and not _SHARED.fresh():
        _SHARED.stop()
        _SHARED = None
    if _SHARED is None and start_one:
        _SHARED = start()
    return _SHARED
