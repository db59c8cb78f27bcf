"""One notebook in a sandboxed kernel (`grader.autograde.kernel`): limits that end a run or cut its output.

Small notebooks without JAX, so each kernel starts in a second or two.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from queue import Empty

import nbformat
import pytest

from grader.autograde import kernel, sandbox

pytestmark = pytest.mark.slow


def _run(tmp_path: Path, cells: list[str], limits: sandbox.Limits):
    workdir, control = tmp_path / "w", tmp_path / "c"
    workdir.mkdir()
    control.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    return kernel.run(nb, workdir, limits, sandboxed=sandbox.probe().sandboxed, control=control)


FORK_STORM = """
import os, time
children = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
except OSError:
    pass
# What JAX's runtime does when it cannot start a thread: abort.
os.abort()
"""


def test_a_fork_storm_is_named_as_the_process_limit(tmp_path):
    """When a kernel forks until its process limit and then dies of SIGABRT (as native code that cannot
    start a thread does), does the reason name the process limit, not a fault in native code?"""
    if sandbox._cgroup_kind() is None:
        pytest.fail("no writable cgroup on this machine: the process limit cannot be applied (the report says so)")
    limits = sandbox.Limits(processes=200, cell_seconds=60, notebook_seconds=120)
    result = _run(tmp_path, ["x = 1", FORK_STORM, "y = 2"], limits)
    assert result.stopped_at == 1, result
    assert "limit of 200 processes and threads" in result.reason and "native code" not in result.reason, result.reason
    assert "processes" in result.applied["cgroup"], result.applied


FLOOD = [
    # Widget state updates: nbclient keeps every comm's state in memory and in the notebook.
    "from ipykernel.comm import Comm\n"
    "c = Comm(target_name='flood')\n"
    "for i in range(400):\n"
    "    c.send({'method': 'update', 'state': {f'k{i}': 'x' * 10000}})",
    # Display updates of one output, many times over.
    "from IPython.display import display, update_display\n"
    "display('start', display_id='d')\n"
    "for i in range(300):\n"
    "    update_display('y' * 10000 + str(i), display_id='d')",
    # Errors with long messages, one per cell.
    *["raise ValueError('z' * 4000)" for _ in range(150)],
]


def test_one_output_budget_covers_every_message_type(tmp_path):
    """Do widget messages, display updates and errors all count against one byte budget per notebook, so
    that the executed notebook stays near that budget and the run says its output was cut?"""
    limits = sandbox.Limits(output_bytes=100_000, cell_seconds=60, notebook_seconds=180)
    result = _run(tmp_path, FLOOD, limits)
    size = len(json.dumps(result.nb))
    assert size < 2 * limits.output_bytes, size
    assert any("bytes of output in all" in note for note in result.notes), result.notes


DISK_HOG = """
import errno
def fill(path):
    try:
        with open(path, 'wb') as f:
            for _ in range(40):
                f.write(b'x' * (1 << 20))
                f.flush()
        return 'wrote 40 MiB'
    except OSError as err:
        return errno.errorcode[err.errno]
print(open('data.txt').read(), fill('big.bin'), fill('/tmp/big.bin'))
"""


def test_a_submission_cannot_fill_the_disk(tmp_path):
    """With a 16 MiB disk budget, does a kernel that writes 40 MiB into its folder and into /tmp get
    ENOSPC in both, while its submission's files are there to read and nothing reaches the grader's disk?"""
    if not sandbox.probe().sandboxed:
        pytest.fail(f"no sandbox on this machine: {sandbox.probe().reason}")
    workdir, control = tmp_path / "w", tmp_path / "c"
    workdir.mkdir()
    control.mkdir()
    (workdir / "data.txt").write_text("the student's data")
    limits = sandbox.Limits(disk_bytes=16 << 20, cell_seconds=60, notebook_seconds=120)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(DISK_HOG), nbformat.v4.new_code_cell("print('alive')")])
    result = kernel.run(nb, workdir, limits, sandboxed=True, control=control, private=True)
    printed = "".join(out.get("text", "") for cell in result.nb.cells for out in cell.outputs)
    assert "the student's data ENOSPC ENOSPC" in printed and "alive" in printed, printed
    assert not (workdir / "big.bin").exists() and result.applied["folder_limited"], result.applied


class _FakeKernelClient:
    """A kernel client whose shell and iopub channels replay scripted messages: each kernel_info
    request (the n-th) is answered on shell, unless the kernel is dead, and on iopub with what
    `iopub_for(request, n)` lists."""

    def __init__(self, iopub_for, alive=True):
        self.iopub_for, self.alive = iopub_for, alive
        self.requests, self.handled = [], []
        self.shell, self.iopub = [], []

        class Channel:
            def __init__(self, queue):
                self.queue = queue

            async def get_msg(self, timeout=None):
                if not self.queue:
                    raise Empty
                item = self.queue.pop(0)
                if isinstance(item, BaseException):
                    raise item
                return item

        self.shell_channel, self.iopub_channel = Channel(self.shell), Channel(self.iopub)

    def kernel_info(self):
        msg_id = f"req{len(self.requests)}"
        self.requests.append(msg_id)
        if self.alive:
            self.shell.append({"msg_type": "kernel_info_reply", "parent_header": {"msg_id": msg_id}, "content": {}})
        self.iopub.extend(self.iopub_for(msg_id, len(self.requests)))
        return msg_id

    def _handle_kernel_info_reply(self, msg):
        self.handled.append(msg["parent_header"]["msg_id"])

    async def is_alive(self):
        return self.alive


def _status(state, parent):
    return {"msg_type": "status", "content": {"execution_state": state}, "parent_header": {"msg_id": parent}}


CRASH_IN_CHECKS = """
import ctypes
from grader import checks
with checks.exercise(1):
    checks.equal(1, 1, what="a first check")
    checks.equal(2, 2, what="the second check")
    ctypes.string_at(0)   # reads address 0: a segfault, as a C++ answer's can be
"""

HANG_IN_CHECKS = """
import time
from grader import checks
with checks.exercise(2):
    checks.equal(1, 1, what="a first check")
    checks.raises(ValueError, lambda: time.sleep(120), what="a call of the answer that never returns")
"""


def test_a_kernel_that_dies_inside_an_exercise_says_which_check_had_started(tmp_path):
    """When native code kills the kernel in an exercise's checks, does the run say which exercise, and which of its
    checks had started last, and nothing for a cell that did not stop?"""
    result = _run(tmp_path, ["x = 1", CRASH_IN_CHECKS, "y = 2"], sandbox.Limits(cell_seconds=60, notebook_seconds=120))
    assert result.stopped_at == 1 and "SIGSEGV" in result.reason, result
    assert result.progress == {1: "Exercise 1, after its check 2: the second check"}, result.progress


def test_a_cell_out_of_time_inside_an_exercise_says_which_check_ran_and_a_later_crash_outside_one_says_nothing(tmp_path):
    """Does a cell interrupted for its time name the check that was calling the answer, and does a later crash
    outside any exercise get no stale note?"""
    after = "import ctypes\nctypes.string_at(0)"
    result = _run(tmp_path, [HANG_IN_CHECKS, "z = 3", after], sandbox.Limits(cell_seconds=3, notebook_seconds=120))
    assert result.timed_out == [0] and result.stopped_at == 2, result
    assert result.progress == {0: "Exercise 2, in its check 2, which runs your code: a call of the answer that never "
                                  "returns"}, result.progress


def test_a_progress_note_is_read_only_from_a_small_regular_file_of_the_right_form(tmp_path):
    """Is the checks' note refused when it is a link (to a secret, say), a second name of another file, too large,
    or not a note, and read when it is one?"""
    note = tmp_path / "note.json"
    note.write_text(json.dumps({"label": "Exercise 3", "count": 0, "what": "", "runs_answer": False}))
    assert kernel.read_progress(note) == "Exercise 3, before its first check"
    secret = tmp_path / "secret"
    secret.write_text(json.dumps({"label": "the secret", "count": 1, "what": "x"}))
    linked = tmp_path / "linked.json"
    linked.symlink_to(secret)
    assert kernel.read_progress(linked) == ""
    second_name = tmp_path / "second.json"
    second_name.hardlink_to(secret)
    assert kernel.read_progress(second_name) == ""
    for junk in ("not json", "[1, 2]", json.dumps({"label": 3, "count": 1}), json.dumps({"label": "E", "count": -1}),
                 json.dumps({"label": "E", "count": 1, "what": "w" * 5000})):
        note.write_text(junk)
        assert kernel.read_progress(note) == "", junk
    assert kernel.read_progress(tmp_path / "missing.json") == ""
    note.write_text(json.dumps({"label": "Exercise\n4", "count": 2, "what": "a\nb", "runs_answer": True}))
    assert kernel.read_progress(note) == "Exercise 4, in its check 2, which runs your code: a b"


def test_the_wait_for_a_kernel_ends_on_its_idle_status_without_a_quiet_period():
    """Does the start end as soon as the idle status of our kernel_info request arrives (other
    messages before it skipped), without waiting for iopub to fall silent afterwards?"""
    trailing = AssertionError("iopub read again after the kernel said it was idle")
    kc = _FakeKernelClient(lambda parent, n: [_status("starting", ""), _status("busy", parent),
                                              _status("idle", "someone else's"), _status("idle", parent), trailing])
    asyncio.run(kernel.wait_until_ready(kc, timeout=5))
    assert kc.requests == ["req0"] and kc.handled == ["req0"]
    assert kc.iopub == [trailing]


def test_the_wait_for_a_kernel_asks_again_when_iopub_missed_the_answer():
    """When iopub has not yet subscribed (nothing arrives for the first request), is kernel_info
    asked again, and does the wait end on the second request's idle status?"""
    kc = _FakeKernelClient(lambda parent, n: [] if n == 1 else [_status("busy", parent), _status("idle", parent)])
    asyncio.run(kernel.wait_until_ready(kc, timeout=5))
    assert kc.requests == ["req0", "req1"] and kc.handled == ["req1"]


def test_the_wait_for_a_dead_kernel_says_it_died():
    """A kernel that died before answering: does the wait stop, saying so, instead of asking until its timeout?"""
    kc = _FakeKernelClient(lambda parent, n: [], alive=False)
    with pytest.raises(RuntimeError, match="died before replying"):
        asyncio.run(kernel.wait_until_ready(kc, timeout=5))


def test_a_late_idle_status_of_an_earlier_request_also_ends_the_wait():
    """An idle status that arrives only after kernel_info was asked again still shows iopub is
    connected: does it end the wait, whichever request it answers?"""
    kc = _FakeKernelClient(lambda parent, n: [] if n == 1 else [_status("idle", "req0")])
    asyncio.run(kernel.wait_until_ready(kc, timeout=5))
    assert kc.requests == ["req0", "req1"] and kc.handled == ["req1"]


def test_a_kernel_runs_in_folders_however_deep_they_lie(tmp_path):
    """Does a notebook run when its folder and the grader's control folder lie deeper than a Unix socket's path
    may be long (about 107 bytes), as a class graded in a deep scratch folder has them?"""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    assert len(str(deep / "w" / ".kernel" / "s-1")) > 120
    result = _run(deep, ["x = 6 * 7", "print(x)"], sandbox.Limits(cell_seconds=60, notebook_seconds=120))
    assert not result.reason, result.reason
    assert result.nb.cells[1].outputs[0]["text"] == "42\n"
