"""Start a grading kernel under its limits: `python -I -S launch.py CONFIG KERNEL_ARGV...`.

The first program in the grading kernelspec's argv. It runs once per submission, on the path
to the kernel's first cell, so it imports nothing but the standard library (not even this
package): it joins the submission's cgroups, sets the rlimits, writes down what it really
applied (the report states that, not what was intended), then replaces itself with bubblewrap
(or, without a sandbox, the kernel itself). `grader.autograde.sandbox` writes CONFIG.
"""

import ctypes
import json
import os
import resource
import signal
import sys

try:  # loaded once, on import: `die_with_parent` may run between fork and exec, where nothing should load
    _LIBC = ctypes.CDLL(None, use_errno=True)
except OSError:
    _LIBC = None

#: prctl's option that sends a signal to this process when the thread that started it ends.
PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Linux: have this process killed (SIGKILL) when the one that started it dies first; the setting
    survives exec. The kernel's launcher uses it (without a sandbox nothing else would end an idle
    orphaned kernel), and so does each grading process. Safe between fork and exec."""
    try:
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except AttributeError:  # not Linux, or no C library: the caller's other means must do
        pass


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
    memory, cpu, file_size = config["memory_bytes"], config["cpu_seconds"], config["file_bytes"]
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if config.get("applied"):
        with open(config["applied"], "w", encoding="utf-8") as f:
            json.dump({"joined": joined, "rlimits": True}, f)
    die_with_parent()
    argv = config["prefix"] + kernel_argv
    if config["prefix"]:  # bubblewrap sets the kernel's environment and folder itself
        os.execvp(argv[0], argv)
    os.chdir(config["workdir"])
    os.execvpe(argv[0], argv, config["env"])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
