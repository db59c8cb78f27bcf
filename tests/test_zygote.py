"""Kernels forked by a zygote (`grader.autograde.zygote`): the same sandbox, user, limits and ends as
kernels that bubblewrap starts, and the usual start when the zygote cannot give one.

Each test runs real sandboxed kernels, each forked by a zygote of its own (a zygote gives one kernel); the
next zygote imports while a test runs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from grader.autograde import kernel, sandbox, zygote
from grader.autograde.worker import seal_folder
from test_sandbox import WRITABLE

pytestmark = pytest.mark.slow

#: What a kernel sees of itself, as one JSON line.
SELF = r"""
import json, os
status = dict(line.split(':', 1) for line in open('/proc/self/status').read().splitlines())
links = []
for fd in os.listdir('/proc/self/fd'):
    try:
        links.append(os.readlink(f'/proc/self/fd/{fd}'))
    except OSError:
        pass
try:
    open('/etc/shadow').read(1)
    shadow = 'READ'
except OSError as err:
    shadow = type(err).__name__
import jax, numpy as np
print(json.dumps({
    'uid': os.getuid(), 'cwd': os.getcwd(), 'files': sorted(os.listdir('.')),
    'caps': [status[k].strip() for k in ('CapEff', 'CapPrm', 'CapInh', 'CapAmb')],
    'bounding': status['CapBnd'].strip(), 'no_new_privs': status['NoNewPrivs'].strip(),
    'processes': sorted(int(p) for p in os.listdir('/proc') if p.isdigit()),
    'files_outside': sorted(l for l in links if l.startswith('/') and not l.startswith(('/dev/', os.getcwd()))),
    'shadow': shadow, 'env': dict(os.environ), 'jax_cache': jax.config.jax_compilation_cache_dir,
    'random': float(np.random.rand()), 'sid': os.getsid(0) == os.getpid(), 'hash': hash('a'),
}))
"""


class Zygotes:
    """Zygotes for the tests, a fresh one each time (`take`) that has done its imports, the next one importing
    meanwhile."""

    def __init__(self):
        self.waiting = zygote.start()
        self.taken: list[zygote.Zygote] = []

    def take(self) -> zygote.Zygote:
        taken, self.waiting = self.waiting, zygote.start()
        assert taken is not None and taken.ready(), "the zygote did not start"
        self.taken.append(taken)
        return taken

    def close(self) -> None:
        for started in [*self.taken, self.waiting]:
            if started is not None:
                started.stop()


@pytest.fixture(scope="module")
def zygotes():
    if not sandbox.probe().sandboxed:
        pytest.fail(f"no sandbox on this machine: {sandbox.probe().reason}")
    pool = Zygotes()
    yield pool
    pool.close()


@pytest.fixture
def forks(zygotes):
    """A zygote that has given no kernel yet."""
    return zygotes.take()


def _run(tmp_path: Path, cells: list[str], socket: Path | None, *, private: bool = True, sealed: Path | None = None,
         **limits):
    workdir, control = tmp_path / "w", tmp_path / "c"
    workdir.mkdir(parents=True)
    control.mkdir()
    os.chmod(workdir, 0o777)
    (workdir / "data.txt").write_text("the student's data")
    if sealed is not None:
        seal_folder(sealed, workdir / ".jax-cache")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    result = kernel.run(nb, workdir, sandbox.Limits(cell_seconds=60, notebook_seconds=120, **limits), sandboxed=True,
                        control=control, private=private, zygote=socket)
    applied = json.loads((control / "launch.applied.json").read_text())
    return result, applied, workdir


def _seen(result, cell: int = 0) -> dict:
    text = "".join(out.get("text", "") for out in result.nb.cells[cell].outputs)
    assert text.strip(), result.nb.cells[cell].outputs
    return json.loads(text.strip().splitlines()[-1])


def test_a_forked_kernel_is_as_confined_as_a_started_one(forks, zygotes, tmp_path):
    """Does a kernel forked by the zygote run in the submission's private folder with the kernel's own
    environment, no capabilities and no new privileges, as nobody when the grader is root, alone in
    its process namespace, with no file of the zygote's open, no /etc/shadow, its own compilation
    cache, its own random seed and its own string hash seed (`hash('a')`), in a session of its own?"""
    first, applied, workdir = _run(tmp_path / "a", [SELF], forks.socket)
    assert applied["zygote"] == "joined", applied
    seen = _seen(first)
    assert seen["cwd"] == str(workdir) and "data.txt" in seen["files"], seen
    plain, _, plain_workdir = _run(tmp_path / "c", [SELF], None)
    assert seen["env"] == {k: v.replace(str(plain_workdir), str(workdir)) for k, v in _seen(plain)["env"].items()}
    assert seen["caps"] == ["0000000000000000"] * 4 and seen["no_new_privs"] == "1", seen
    if os.geteuid() == 0:
        assert seen["uid"] == sandbox.KERNEL_UID, seen
    assert seen["shadow"] == "FileNotFoundError", seen
    # The sandbox's first process, bubblewrap's placeholder and the kernel; nothing of the grader's.
    assert len(seen["processes"]) <= 4 and max(seen["processes"]) < 100, seen["processes"]
    assert seen["files_outside"] == [], seen["files_outside"]
    assert seen["jax_cache"] == str(workdir / ".jax-cache") and seen["sid"], seen
    second, applied, _ = _run(tmp_path / "b", [SELF], zygotes.take().socket)
    assert applied["zygote"] == "joined", applied
    assert _seen(second)["random"] != seen["random"]
    assert len({seen["hash"], _seen(second)["hash"], _seen(plain)["hash"]}) == 3, (seen, _seen(second))


#: A program both kernels compile, and how many of its compilations came from the JAX cache.
COMPILE = r"""
import jax, jax.numpy as jnp
from jax import monitoring
hits = []
monitoring.register_event_listener(lambda event, **kw: hits.append(event) if event.endswith('/cache_hits') else None)
print('result:', jax.jit(lambda x: jnp.sin(x) * 3 + 1)(jnp.arange(4.0)).tolist(), 'hits:', len(hits))
"""

#: What a kernel can do with the sealed cache folder in its own folder, and with the grader's copy.
PROBE_SEALED = r"""
import json, os
def attempt(action):
    try:
        action()
        return 'done'
    except OSError as err:
        return type(err).__name__
entry = NAMES[0]
seen = {
    'list': attempt(lambda: os.listdir('.jax-cache')),
    'list_seed': attempt(lambda: os.listdir(SEED + '/.jax-cache')),
    'read': attempt(lambda: open('.jax-cache/' + entry, 'rb').read()),
    'write': attempt(lambda: open('.jax-cache/mine-cache', 'wb').write(b'x')),
    'chmod': attempt(lambda: os.chmod('.jax-cache', 0o777)),
    'remove': attempt(lambda: os.unlink('.jax-cache/' + entry)),
    'rename': attempt(lambda: os.rename('.jax-cache/' + entry, '.jax-cache/other')),
    'overwrite': attempt(lambda: open('.jax-cache/' + entry, 'r+b').write(b'x')),
}
print(json.dumps(seen))
"""


@pytest.mark.parametrize("how", ["forked", "started"])
def test_a_sealed_cache_gives_a_kernel_the_entries_of_its_own_programs_and_no_list(zygotes, tmp_path, how):
    """The reference run's JAX cache, sealed into a submission's folder (`worker.seal_folder`): does the
    kernel load from it the programs it compiles itself, and can it not list it (there, or through the
    grader's copy it was seeded from), change its mode, or remove, rename or overwrite an entry, while
    it may still add its own? Only where the grader is root: the kernel is then another user."""
    if os.geteuid() != 0:
        pytest.skip("the grader seals a folder only as root (worker.can_seal)")
    socket = zygotes.take().socket if how == "forked" else None
    reference, _, reference_dir = _run(tmp_path / "ref", [COMPILE], socket, private=False)
    socket = zygotes.take().socket if how == "forked" else None
    made = sorted(p.name for p in (reference_dir / ".jax-cache").iterdir() if p.name.endswith("-cache"))
    assert made and "hits: 0" in reference.nb.cells[0].outputs[0]["text"], reference.nb.cells[0].outputs
    probe = PROBE_SEALED.replace("NAMES", repr(made)).replace("SEED", repr(sandbox.SEED))
    result, applied, _ = _run(tmp_path / "sub", [COMPILE, probe], socket, sealed=reference_dir / ".jax-cache")
    if socket:
        assert applied["zygote"] == "joined", applied
    assert result.nb.cells[0].outputs[0]["text"] == reference.nb.cells[0].outputs[0]["text"].replace(
        "hits: 0", f"hits: {len(made)}"), (result.nb.cells[0].outputs, made)
    denied = "PermissionError"
    assert _seen(result, 1) == {"list": denied, "list_seed": denied, "read": "done", "write": "done",
                                "chmod": denied, "remove": denied, "rename": denied, "overwrite": denied}


def test_in_a_user_namespace_a_forked_kernel_gives_up_every_capability(forks, tmp_path, monkeypatch):
    """Where the sandbox has a user namespace (the grader is not root), the kernel that joins it holds
    every capability there until it drops them: are they all gone, bounding set included?"""
    monkeypatch.setattr(sandbox, "runs_as_root", lambda: False)
    result, applied, _ = _run(tmp_path, [SELF], forks.socket)
    assert applied["zygote"] == "joined", applied
    seen = _seen(result)
    assert seen["caps"] == ["0000000000000000"] * 4 and seen["bounding"] == "0000000000000000", seen
    assert seen["no_new_privs"] == "1", seen


#: What a kernel gets when it asks for a new user namespace: util-linux's `unshare -Urm true`, Python's
#: `os.unshare`, and the system call clone with CLONE_NEWUSER.
USER_NAMESPACE = r"""
import ctypes, json, os, platform, signal, subprocess
tool = subprocess.run(['unshare', '-Urm', 'true'], capture_output=True, text=True)
try:
    os.unshare(os.CLONE_NEWUSER)
    call = 'made'
except OSError as err:
    call = err.strerror
libc = ctypes.CDLL(None, use_errno=True)
child = libc.syscall({'x86_64': 56, 'aarch64': 220}[platform.machine()], 0x10000000 | signal.SIGCHLD, 0, 0, 0, 0)
if child == 0:
    os._exit(0)
if child > 0:
    os.waitpid(child, 0)
print(json.dumps({'tool': [tool.returncode, tool.stderr.strip()], 'unshare': call,
                  'clone': 'made' if child > 0 else os.strerror(ctypes.get_errno())}))
"""

#: The ways a kernel is graded: forked by a zygote or started by bubblewrap; as `nobody` by a grader that is
#: root, or in the sandbox's user namespace by one that is not (`sandbox.runs_as_root` stands in for it).
START_PATHS = [pytest.param(how, as_root, id=f"{how}, {'as root' if as_root else 'in a user namespace'}")
               for how in ("forked", "started") for as_root in (True, False)]


def _start(zygotes, how: str, as_root: bool, monkeypatch):
    if as_root and os.geteuid() != 0:
        pytest.skip("the kernel runs as nobody only when the grader is root")
    monkeypatch.setattr(sandbox, "runs_as_root", lambda: as_root)
    return zygotes.take().socket if how == "forked" else None


@pytest.mark.parametrize("how, as_root", START_PATHS)
def test_every_place_a_kernel_can_write_is_a_tmpfs_of_bounded_size(zygotes, tmp_path, monkeypatch, how, as_root):
    """Is every folder a kernel can add a file to on a tmpfs no larger than its disk budget: its own folder,
    /tmp, and its sockets folder (`.kernel`, a tmpfs of `sandbox.RUNTIME_BYTES`), none on the grader's disk
    (where one submission filled it beside others), and neither the sandbox's root nor /dev (a tmpfs of no
    set size, which a kernel in a user namespace owns)?"""
    socket = _start(zygotes, how, as_root, monkeypatch)
    budget = 24 << 20
    result, applied, workdir = _run(tmp_path, [WRITABLE], socket, disk_bytes=budget)
    if socket:
        assert applied["zygote"] == "joined", applied
    found = _seen(result)
    assert {str(workdir), "/tmp", str(workdir / ".kernel"), "/dev/shm"} <= found.keys(), found
    unbounded = {folder: seen for folder, seen in found.items() if seen[0] != "tmpfs" or seen[1] > budget}
    assert not unbounded, unbounded
    assert found[str(workdir / ".kernel")][1] <= sandbox.RUNTIME_BYTES, found
    assert result.applied["folder_limited"] and result.applied["runtime"] is None, result.applied


@pytest.mark.parametrize("how, as_root", START_PATHS)
def test_a_kernel_cannot_make_a_user_namespace(zygotes, tmp_path, monkeypatch, how, as_root):
    """In a user namespace of its own a kernel holds every capability: it could mount a tmpfs of any size and
    write past its disk budget. Is every way to make one refused (`unshare -Urm true`, `os.unshare`, clone with
    CLONE_NEWUSER), while the kernel still starts processes and threads (the tool ran; JAX computes)?"""
    socket = _start(zygotes, how, as_root, monkeypatch)
    cells = [USER_NAMESPACE, "import jax, jax.numpy as jnp\nprint(jax.jit(lambda x: x * 2)(jnp.arange(3.0)).tolist())"]
    result, applied, _ = _run(tmp_path, cells, socket)
    if socket:
        assert applied["zygote"] == "joined", applied
    refused = "Operation not permitted"
    assert _seen(result) == {"tool": [1, f"unshare: unshare failed: {refused}"], "unshare": refused,
                             "clone": refused}, _seen(result)
    assert result.nb.cells[1].outputs[0]["text"] == "[0.0, 2.0, 4.0]\n", result.nb.cells[1].outputs


@pytest.mark.parametrize("cell, reason", [
    ("import os; os._exit(3)", "exited with status 3"),
    ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "crashed with SIGSEGV"),
    ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "was killed"),
])
def test_a_forked_kernel_dies_as_a_started_one_does(forks, tmp_path, cell, reason):
    """Does the grader name a forked kernel's death (its exit status, or the signal that killed it) as it
    names the death of a kernel that bubblewrap started, at the cell that caused it?"""
    result, applied, _ = _run(tmp_path, ["x = 1", cell, "y = 2"], forks.socket)
    assert applied["zygote"] == "joined", applied
    assert result.stopped_at == 1 and reason in result.reason, result


def test_a_forked_kernel_keeps_its_limits(forks, tmp_path):
    """Do a forked kernel's rlimits (address space, file size) and disk budget hold as a started one's?"""
    code = ("import resource, errno\n"
            "def fill(path):\n"
            "    try:\n"
            "        with open(path, 'wb') as f:\n"
            "            for _ in range(40):\n"
            "                f.write(b'x' * (1 << 20)); f.flush()\n"
            "        return 'wrote'\n"
            "    except OSError as err:\n"
            "        return errno.errorcode[err.errno]\n"
            "print('limits:', resource.getrlimit(resource.RLIMIT_AS)[0], resource.getrlimit(resource.RLIMIT_FSIZE)[0], "
            "fill('big.bin'), fill('/tmp/big.bin'))")
    result, applied, workdir = _run(tmp_path, [code], forks.socket, disk_bytes=16 << 20, file_bytes=64 << 20)
    assert applied["zygote"] == "joined", applied
    # IPython's history thread may complain in the same output once the disk is full: read our line.
    text = "".join(out.get("text", "") for out in result.nb.cells[0].outputs)
    printed = next((line.split()[1:] for line in text.splitlines() if line.startswith("limits:")), text)
    assert printed == [str(sandbox.Limits().memory_bytes), str(64 << 20), "ENOSPC", "ENOSPC"], printed
    assert not (workdir / "big.bin").exists()


def test_without_a_zygote_the_kernel_starts_the_usual_way_and_says_why(tmp_path):
    """When the zygote cannot be reached (it died, say), does the kernel still start, from bubblewrap's
    own program, with the reason in what the launcher recorded?"""
    if not sandbox.probe().sandboxed:
        pytest.fail(f"no sandbox on this machine: {sandbox.probe().reason}")
    result, applied, _ = _run(tmp_path, ["print('ran')"], tmp_path / "no-zygote.sock")
    assert "could not be reached" in applied["zygote"], applied
    assert not result.reason and result.nb.cells[0].outputs[0]["text"] == "ran\n", result


def test_a_zygote_refuses_a_kernel_whose_jax_settings_differ(forks, tmp_path, monkeypatch):
    """JAX reads its settings from the environment when it is imported, which a forked kernel never does
    again: does a kernel whose JAX settings differ from the zygote's start the usual way instead?"""
    original = sandbox.kernel_env
    monkeypatch.setattr(sandbox, "kernel_env", lambda *a, **k: {**original(*a, **k), "JAX_ENABLE_X64": "1"})
    result, applied, _ = _run(tmp_path, ["import jax; print(jax.config.jax_enable_x64)"], forks.socket)
    assert "JAX_ENABLE_X64" in applied["zygote"], applied
    assert result.nb.cells[0].outputs[0]["text"] == "True\n", result.nb.cells[0].outputs


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        found += map(int, children)
        todo += map(int, children)
    return found


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "X"


def test_a_forked_kernel_does_not_outlive_the_process_that_launched_it(forks, tmp_path):
    """If the grading process dies, does the kernel the zygote forked for it die too, and the zygote with it
    (it gives one kernel, and ends when that one has)?"""
    workdir = tmp_path / "w"
    (workdir / ".kernel").mkdir(parents=True)
    os.chmod(workdir, 0o777)
    config = tmp_path / "launch.json"
    sandbox.write_launch_config(config, workdir=workdir, limits=sandbox.Limits(), sandboxed=True, cgroups=[],
                                zygote=forks.socket)
    argv = sandbox.launcher_argv(config) + [sys.executable, "-c", kernel.KERNEL_MAIN, "-f",
                                            str(workdir / ".kernel" / "connection.json")]
    parent = f"import subprocess, time; subprocess.Popen({argv!r}); time.sleep(120)"
    proc = subprocess.Popen([sys.executable, "-c", parent])
    before = set(_descendants(forks.process.pid))
    for _ in range(100):
        forked = set(_descendants(forks.process.pid)) - before
        if len(forked) >= 2:  # the joiner and its kernel
            break
        time.sleep(0.1)
    else:
        proc.kill()
        raise AssertionError("the zygote forked no kernel")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for _ in range(100):
        alive = {pid for pid in _descendants(forks.process.pid) if _state(pid) not in "ZX"}
        if not alive & forked:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the forked kernel outlived its launcher's parent")
    forks.process.wait(timeout=30)


def _ask(forks, request: dict) -> str:
    """The joiner's first line for `request`, sent straight to the zygote's socket."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(forks.socket))
        conn.sendall((json.dumps(request) + "\n").encode())
        return conn.makefile().readline().strip()


def test_a_zygote_never_forks_a_kernel_outside_a_sandbox(zygotes, tmp_path):
    """Asked for a kernel in a process that is not a sandbox (the grader's own namespaces), or in one
    whose namespaces are not those bubblewrap named (its number reused by another process), does the
    joiner refuse, forking nothing?"""
    workdir = tmp_path / "w"
    workdir.mkdir()
    base = {"env": sandbox.kernel_env(workdir), "cgroups": [], "workdir": str(workdir), "seed": None, "uid": None,
            "gid": None, "rlimits": {}, "argv": ["-f", str(tmp_path / "c.json")]}
    mine = {k: os.stat(f"/proc/self/ns/{k}").st_ino for k in ("mnt", "pid")}
    answer = _ask(zygotes.take(), {**base, "pid": os.getpid(), "namespaces": mine})
    assert answer.startswith("failed") and "namespaces were not found" in answer, answer
    other = subprocess.Popen(["bwrap", "--unshare-pid", "--dev-bind", "/", "/", "--", "sleep", "30"])
    try:
        time.sleep(0.5)
        target = int(Path(f"/proc/{other.pid}/task/{other.pid}/children").read_text().split()[0])
        answer = _ask(zygotes.take(), {**base, "pid": target, "namespaces": {"mnt": 1, "pid": 2}})
        assert answer.startswith("failed") and "no longer the sandbox's" in answer, answer
    finally:
        other.kill()
        other.wait()


def test_a_jax_variable_set_before_the_first_import_does_not_reach_a_forked_kernel(forks, tmp_path):
    """The difference the README names: JAX read its environment in the zygote, so a submission that sets
    JAX_ENABLE_X64 in os.environ before its first `import jax` keeps the default, while
    `jax.config.update` works as in any kernel."""
    cells = ["import os\nos.environ['JAX_ENABLE_X64'] = '1'\nimport jax\nprint(jax.config.jax_enable_x64)",
             "jax.config.update('jax_enable_x64', True)\nprint(jax.numpy.ones(1).dtype)"]
    result, applied, _ = _run(tmp_path, cells, forks.socket)
    assert applied["zygote"] == "joined", applied
    assert [cell.outputs[0]["text"] for cell in result.nb.cells] == ["False\n", "float64\n"]


def test_a_dead_workers_zygote_folder_is_swept_and_a_live_ones_kept():
    """A worker killed at a job's deadline cannot remove its zygote's folder: is it removed when the next
    zygote starts, while the folder of a zygote whose worker lives is kept?"""
    import tempfile

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = Path(tempfile.mkdtemp(prefix=f"jbj-zygote-{gone.pid}-"))
    live = Path(tempfile.mkdtemp(prefix=f"jbj-zygote-{os.getpid()}-"))
    try:
        (dead / "log").write_text("")
        assert zygote.sweep() >= 1
        assert not dead.exists() and live.exists()
    finally:
        for folder in (dead, live):
            if folder.exists():
                os.rmdir(folder)
