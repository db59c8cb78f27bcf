"""Start a grading kernel under its limits: `python -I -S launch.py CONFIG KERNEL_ARGV...`.

The first program in the grading kernelspec's argv. It runs once per submission, on the path
to the kernel's first cell, so it imports nothing but the standard library (not even this
package): it joins the submission's cgroups, sets the rlimits, writes down what it really
applied (the report states that, not what was intended), then replaces itself with bubblewrap
(or, without a sandbox, the kernel itself). `grader.autograde.sandbox` writes CONFIG.

With a zygote (`grader.autograde.zygote`) in CONFIG, it starts bubblewrap as its child instead,
with a placeholder for the kernel, and asks the zygote for a kernel in that sandbox. It then
stays, as the process the grader watches: it ends as the kernel ends, and its death kills the
sandbox and the kernel in it. If the zygote cannot give a kernel, the placeholder starts one
the usual way.
"""

import ctypes
import errno
import json
import os
import platform
import resource
import signal
import socket
import stat
import struct
import sys

try:  # loaded once, on import: `die_with_parent` may run between fork and exec, where nothing should load
    _LIBC = ctypes.CDLL(None, use_errno=True)
except OSError:
    _LIBC = None

#: prctl's option that sends a signal to this process when the thread that started it ends.
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_SLAVE = 2, 4, 8, 1 << 14, 1 << 19
CLONE_NEWUSER = 0x10000000


def set_rlimits(limits: dict) -> None:
    """A kernel's rlimits, from its "memory_bytes", "cpu_seconds" and "file_bytes"; no core files."""
    memory, cpu, file_size = limits["memory_bytes"], limits["cpu_seconds"], limits["file_bytes"]
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def enter_folder(seed: str | None, uid: int | None, gid: int | None) -> None:
    """In the sandbox, in the kernel's folder, before the kernel runs (`sandbox.KERNEL_START`, and a
    zygote's kernel): with `seed`, the folder is a size-limited tmpfs: copy the submission (and the
    caches it starts from) into it, but not the grader's sockets. With `uid` (the grader is root):
    hand the folder to the kernel's user, then drop every privilege for good."""
    import shutil

    if seed is not None:
        for name in os.listdir(seed):
            source = os.path.join(seed, name)
            if name == ".kernel":
                continue
            if os.path.isdir(source) and not os.path.islink(source):
                shutil.copytree(source, name, symlinks=True, dirs_exist_ok=True)
            else:
                shutil.copy2(source, name, follow_symlinks=False)
    if uid is not None:
        for top, dirs, files in os.walk("."):
            # A folder the grader sealed (no read bit: `worker.seal_folder`) stays root's and as it is.
            dirs[:] = [n for n in dirs if not _sealed(os.path.join(top, n))]
            for name in [top] + [os.path.join(top, n) for n in dirs + files]:
                os.lchown(name, uid, gid)
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)  # from root: every capability goes with it


# ---- no new user namespaces in a kernel ---------------------------------------------------------

#: Per machine: the architecture's number in seccomp's data, and the system calls the filter looks at.
#: x86-64 also runs x32 calls, whose numbers carry bit 30: the filter refuses them all.
SECCOMP_ARCHES = {"x86_64": (0xC000003E, {"unshare": 272, "clone": 56, "clone3": 435}, True),
                  "aarch64": (0xC00000B7, {"unshare": 97, "clone": 220, "clone3": 435}, False)}


def userns_filter(machine: str | None = None) -> bytes | None:
    """A seccomp program (classic BPF, as prctl takes it) that refuses a new user namespace: `unshare` and
    `clone` with CLONE_NEWUSER fail with EPERM, and `clone3`, whose flags seccomp cannot read, with ENOSYS (the
    C library then makes its threads and processes with `clone`). Calls of another architecture than the
    machine's are refused too. None on a machine it has no numbers for (`SECCOMP_ARCHES`)."""
    if (machine or platform.machine()) not in SECCOMP_ARCHES:
        return None
    arch, number, x32 = SECCOMP_ARCHES[machine or platform.machine()]
    allow, deny, nosys = 0x7FFF0000, 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS
    load, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|{JEQ,JGE,JSET}|K, BPF_RET|K
    # (code, jump if true, jump if false, k): a jump names the label it goes to, or None for the next one.
    program = [(load, None, None, 4), (jeq, None, "deny", arch), (load, None, None, 0)]
    if x32:
        program.append((jge, "deny", None, 0x40000000))
    program += [(jeq, "nosys", None, number["clone3"]), (jeq, "flags", None, number["unshare"]),
                (jeq, "flags", None, number["clone"]), (ret, None, None, allow)]
    labels = {"flags": len(program)}
    program += [(load, None, None, 16), (jset, "deny", None, CLONE_NEWUSER), (ret, None, None, allow)]  # flags: args[0]
    labels["deny"] = len(program)
    program.append((ret, None, None, deny))
    labels["nosys"] = len(program)
    program.append((ret, None, None, nosys))
    return b"".join(struct.pack("=HBBI", code, 0 if yes is None else labels[yes] - i - 1,
                                0 if no is None else labels[no] - i - 1, k)
                    for i, (code, yes, no, k) in enumerate(program))


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def refuse_user_namespaces() -> bool:
    """In a kernel's process, before it runs anything of the submission's: take no new privileges, and make
    every new user namespace fail from now on, in this process and all it starts (`userns_filter`). Inside a
    user namespace of its own a process holds every capability, with which it could mount filesystems of
    any size and escape the sandbox's limits. False on a machine with no filter (`SECCOMP_ARCHES`)."""
    code = userns_filter()
    if code is None:
        return False
    if _LIBC is None:
        raise OSError("no C library to install the kernel's system call filter with")
    if _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "could not set no_new_privs")
    buffer = ctypes.create_string_buffer(code, len(code))
    program = _Program(len(code) // 8, ctypes.addressof(buffer))
    if _LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "could not install the filter that refuses user namespaces")
    return True


# ---- the kernel's sockets folder, bounded ------------------------------------------------------

def bound_runtime(folder: str, link: str, size: int, inodes: int) -> str | None:
    """Put a kernel's sockets folder (`.kernel`) on a tmpfs of `size` bytes and `inodes` files, and point the
    grader's `link` at it; None when done, else why not (the folder then stays as it is).

    The kernel needs to write there (its sockets, the checks' progress note), and the grader to read
    there; a folder of the grader's disk would let the kernel fill that disk. So this launcher makes a
    mount namespace of its own (in a user namespace of its own when it is not root), mounts the tmpfs
    over the folder there and copies in what the grader put in it (the connection file). The sandbox, made
    from this namespace, binds the tmpfs; the grader reaches it through `link`, a symbolic link to the
    folder as this process sees it (/proc/PID/root/...). Nothing mounted here reaches the grader's own
    namespace, and the tmpfs goes when the last process using it ends."""
    folder = os.path.abspath(folder)
    # Tried in a child first: a system may let a process make a user namespace but give it no right to mount
    # there, and this process must not be left in a namespace it cannot use.
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(read)
            os.write(write, (_own_tmpfs(folder, size, inodes) or "").encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as said:
        why = said.read().decode(errors="replace")
    os.waitpid(child, 0)
    if why:
        return why
    try:
        before = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as err:
        return f"its sockets folder could not be opened ({err.strerror})"
    try:
        why = _own_tmpfs(folder, size, inodes)
        if why:
            return why
        for entry in os.scandir(before):  # the connection file, which the tmpfs now hides
            if entry.is_file(follow_symlinks=False):
                with open(os.open(entry.name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=before), "rb") as source, \
                        open(os.open(os.path.join(folder, entry.name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600),
                             "wb") as copy:
                    copy.write(source.read())
        staging = f"{link}.{os.getpid()}"
        os.symlink(f"/proc/{os.getpid()}/root{folder}", staging)
        os.replace(staging, link)
        return None
    finally:
        os.close(before)


def _own_tmpfs(folder: str, size: int, inodes: int) -> str | None:
    """Move this process to a mount namespace of its own and mount a tmpfs over `folder` there; None when
    done, else why not."""
    if _LIBC is None:
        return "no C library to mount with"
    uid, gid = os.getuid(), os.getgid()
    try:
        if os.geteuid() == 0:
            os.unshare(os.CLONE_NEWNS)
        else:  # a mount namespace needs a user namespace of its own, where this uid stays itself
            os.unshare(os.CLONE_NEWUSER | os.CLONE_NEWNS)
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                with open(f"/proc/self/{name}", "w") as f:
                    f.write(text)
    except OSError as err:
        return f"no mount namespace could be made for it ({err.strerror})"
    # Mounts made here must not reach the namespace this one was copied from.
    if _LIBC.mount(None, b"/", None, MS_REC | MS_SLAVE, None) != 0:
        return f"the mounts could not be kept from the grader's ({os.strerror(ctypes.get_errno())})"
    options = f"size={size},nr_inodes={inodes},mode=0700".encode()
    if _LIBC.mount(b"tmpfs", folder.encode(), b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options) != 0:
        return f"no tmpfs could be mounted for it ({os.strerror(ctypes.get_errno())})"
    return None


def _sealed(path: str) -> bool:
    info = os.lstat(path)
    return stat.S_ISDIR(info.st_mode) and info.st_mode & 0o444 == 0


def die_with_parent() -> None:
    """Linux: have this process killed (SIGKILL) when the one that started it dies first; the setting
    survives exec. The kernel's launcher uses it (without a sandbox nothing else would end an idle
    orphaned kernel), and so does each grading process. Safe between fork and exec."""
    try:
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except AttributeError:  # not Linux, or no C library: the caller's other means must do
        pass


#: The sandbox's program while the zygote is asked for a kernel: `PLACEHOLDER GO READY ARGV...`. It
#: writes a byte on READY once it runs (the sandbox is then whole); a byte on GO: start the kernel
#: the usual way (ARGV); the end of GO: the launcher is done.
PLACEHOLDER = ("import os, sys\n"
               "os.write(int(sys.argv[2]), b'r')\n"
               "os.close(int(sys.argv[2]))\n"
               "go = os.read(int(sys.argv[1]), 1)\n"
               "os.close(int(sys.argv[1]))\n"
               "if go == b'1':\n"
               "    os.execv(sys.argv[3], sys.argv[3:])\n")


def _lines(conn: socket.socket):
    """The lines the zygote's joiner sends, as they come."""
    buffer = b""
    while True:
        chunk = conn.recv(4096)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield line.decode(errors="replace")


def _end(code: int) -> None:
    """End as bubblewrap reports its program's end: `code` (from `os.waitstatus_to_exitcode`) as the
    exit status, or 128 + the signal that killed it."""
    os._exit(128 - code if code < 0 else code)


def run_joined(config: dict, prefix: list[str], kernel_argv: list[str], applied: str | None) -> None:
    """Bubblewrap as a child, with `PLACEHOLDER` as its program; the kernel from the zygote."""
    split = prefix.index("--")
    start = prefix[split + 1:] + kernel_argv  # how the kernel starts without the zygote
    info_r, info_w = os.pipe()
    go_r, go_w = os.pipe()
    ready_r, ready_w = os.pipe()
    for fd in (info_w, go_r, ready_w):
        os.set_inheritable(fd, True)
    argv = prefix[:1] + ["--info-fd", str(info_w)] + prefix[1:split + 1] + [
        sys.executable, "-I", "-S", "-c", PLACEHOLDER, str(go_r), str(ready_w)] + start
    bwrap = os.fork()
    if bwrap == 0:
        try:
            for fd in (info_r, go_w, ready_r):
                os.close(fd)
            die_with_parent()
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    for fd in (info_w, go_r, ready_w):
        os.close(fd)
    outcome = "the zygote gave no kernel"
    with os.fdopen(info_r, "rb") as stream:
        raw = b""
        while chunk := stream.read(4096):
            raw += chunk
            try:
                info = json.loads(raw)
                pid, namespaces = info["child-pid"], {k: info.get(f"{k}-namespace") for k in ("mnt", "pid")}
                break
            except ValueError:
                continue
        else:
            pid = None  # bubblewrap failed before its sandbox was up
    # bubblewrap names its first process before it builds the sandbox: wait for the placeholder.
    if pid is not None and os.read(ready_r, 1) != b"r":
        pid = None
    os.close(ready_r)
    joined = False
    if pid is not None:
        # The namespaces bubblewrap named, which the joiner checks it enters (not another process's,
        # were the number of the sandbox's first process ever reused).
        request = dict(config["zygote"]["request"], pid=pid, namespaces=namespaces,
                       argv=kernel_argv[kernel_argv.index("-f"):], cgroups=config.get("joined", []))
        try:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(config["zygote"]["socket"])
            conn.sendall((json.dumps(request) + "\n").encode())
            lines = _lines(conn)
            first = next(lines, "failed the zygote's joiner ended without a word")
            if first == "ok":
                joined, outcome = True, "joined"
            else:
                outcome = first.removeprefix("failed ")
        except OSError as err:
            outcome = f"the zygote could not be reached ({err})"
    if applied:
        with open(applied, "r+", encoding="utf-8") as f:
            record = json.load(f)
            record["zygote"] = outcome
            f.seek(0)
            json.dump(record, f)
            f.truncate()
    if not joined:
        try:
            os.write(go_w, b"1")  # the placeholder starts the kernel itself
        except OSError:
            pass  # bubblewrap failed: its status says how
        _, status = os.waitpid(bwrap, 0)
        _end(os.waitstatus_to_exitcode(status))
    ended = next((line for line in lines if line.startswith("exit ")), None)
    try:
        os.kill(bwrap, signal.SIGKILL)  # the sandbox, and anything the kernel left in it
    except OSError:
        pass
    os.waitpid(bwrap, 0)
    # No word: the joiner was killed (by the kernel's memory limit, the likeliest), and so the kernel with it.
    _end(int(ended.split()[1]) if ended else -signal.SIGKILL)


def main(config_path: str, kernel_argv: list[str]) -> None:
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    joined = []
    for folder in config["cgroups"]:
        try:
            with open(os.path.join(folder, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
            joined.append(folder)
        except OSError:
            pass  # the cgroup went away or refused us: the rlimits below still apply
    set_rlimits(config)
    record = {"joined": joined, "rlimits": True}
    if config.get("runtime") and config["prefix"]:
        runtime = config["runtime"]
        why = bound_runtime(runtime["folder"], runtime["link"], runtime["bytes"], runtime["inodes"])
        record["runtime"] = "bounded" if why is None else why
    if config.get("applied"):
        with open(config["applied"], "w", encoding="utf-8") as f:
            json.dump(record, f)
    die_with_parent()
    if config.get("zygote") and config["prefix"]:
        config["joined"] = joined
        run_joined(config, config["prefix"], kernel_argv, config.get("applied"))
    argv = config["prefix"] + kernel_argv
    if config["prefix"]:  # bubblewrap sets the kernel's environment and folder itself
        os.execvp(argv[0], argv)
    os.chdir(config["workdir"])
    os.execvpe(argv[0], argv, config["env"])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
