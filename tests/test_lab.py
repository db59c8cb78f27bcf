"""`make lab` serves JupyterLab on notebooks/ with nbgrader's extensions, headless."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from conftest import CHAPTERS, ROOT

TOKEN = "course-lab-test"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {TOKEN}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, ""


@pytest.mark.slow
def test_make_lab_serves_jupyterlab_with_the_chapters(tmp_path):
    """Does `make lab` start JupyterLab that answers 200 on /lab, lists the chapters and loads nbgrader?"""
    port = free_port()
    args = (f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={TOKEN} "
            "--ServerApp.open_browser=False")
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"), JUPYTER_CONFIG_DIR=str(tmp_path / "config"))
    log = (tmp_path / "lab.log").open("w")
    proc = subprocess.Popen(["make", "lab", f"LAB_ARGS={args}"], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                status, page = get(f"{base}/lab")
                break
            except OSError:
                time.sleep(0.5)
        assert status == 200, f"/lab answered {status}; log:\n{(tmp_path / 'lab.log').read_text()[-2000:]}"
        assert "@jupyter/nbgrader" in page, "nbgrader's lab extension is not loaded"

        status, listing = get(f"{base}/api/contents")
        assert status == 200
        assert {item["name"] for item in json.loads(listing)["content"]} >= set(CHAPTERS)
        status, kernels = get(f"{base}/api/kernelspecs")
        assert status == 200 and "python3" in json.loads(kernels)["kernelspecs"]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
