"""A real Dask distributed cluster on loopback for tests: `dask scheduler` and `dask worker`
processes started with the course venv's `dask` command, as an instructor would start them."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class LocalCluster:
    address: str
    folder: Path
    workers: list[subprocess.Popen] = field(default_factory=list)


def _dask() -> str:
    return str(Path(sys.executable).with_name("dask"))


@contextlib.contextmanager
def local_cluster(folder: Path, workers: int = 2):
    """A scheduler on a free loopback port and `workers` one-thread workers; all stopped after."""
    folder.mkdir(parents=True, exist_ok=True)
    info = folder / "scheduler.json"
    logs = []
    processes = []

    def start(args: list[str], name: str) -> subprocess.Popen:
        log = (folder / f"{name}.log").open("w")
        logs.append(log)
        # Each in a session of its own, so a test can kill one worker with all its processes.
        proc = subprocess.Popen([_dask(), *args], stdout=log, stderr=subprocess.STDOUT, cwd=folder,
                                start_new_session=True)
        processes.append(proc)
        return proc

    try:
        start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
               "--scheduler-file", str(info)], "scheduler")
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        if not info.exists():
            raise RuntimeError(f"the Dask scheduler did not start:\n{(folder / 'scheduler.log').read_text()[-2000:]}")
        address = json.loads(info.read_text())["address"]
        cluster = LocalCluster(address, folder)
        for n in range(workers):
            cluster.workers.append(start(["worker", address, "--nthreads", "1", "--no-dashboard",
                                          "--name", f"worker-{n + 1}"], f"worker-{n + 1}"))
        from distributed import Client

        with Client(address, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=120)
        yield cluster
    finally:
        for proc in processes:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in processes:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        for log in logs:
            log.close()
