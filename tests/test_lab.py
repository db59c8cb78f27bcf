"""JupyterLab as learners and instructors meet it: `make lab` over HTTP, then both Labs in a real browser.

The browser is Debian's chromium (`make test` installs it with tools/install-browser), driven by the
pinned `playwright` package through `executable_path`; Playwright's own browser download is never
used. A screenshot of each step goes to test-output/lab-browser/ (kept after a failure).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import CHAPTERS, ROOT
from grader.course import read_notebook, solution_path

TOKEN = "course-lab-test"
SHOTS = ROOT / "test-output" / "lab-browser"
#: Launch flags that work on a machine without a screen or outside network, as root or not.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]
#: nbgrader's instructor plugins and JupyterLab's news pop-up, which the learner's Lab turns off.
INSTRUCTOR_PLUGINS = ["@jupyter/nbgrader:create-assignment", "@jupyter/nbgrader:formgrader",
                      "@jupyter/nbgrader:menu", "@jupyter/nbgrader:course-list"]
NEWS_PLUGIN = "@jupyterlab/apputils-extension:announcements"
NEWS_QUESTION = "get notified about"


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


class Lab:
    """A running JupyterLab server: its address, its log and its page."""

    def __init__(self, base: str, log: Path):
        self.base, self.log = base, log

    def url(self, path: str = "lab") -> str:
        return f"{self.base}/{path}?token={TOKEN}"

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:]


@contextmanager
def running_lab(cmd: list[str], *, cwd: Path, env: dict[str, str], log: Path, port: int):
    """Start `cmd` (a Lab on `port`), wait until /lab answers, and stop its whole process group after."""
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        lab = Lab(f"http://127.0.0.1:{port}", log)
        try:
            deadline = time.monotonic() + 180
            status = None
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    status, _ = get(f"{lab.base}/lab")
                    break
                except OSError:
                    time.sleep(0.5)
            assert status == 200, f"/lab answered {status}; log:\n{lab.log_tail()}"
            yield lab
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def lab_env(home: Path) -> dict[str, str]:
    """The test's own Jupyter settings and runtime folders, with notebook windowing turned off.

    JupyterLab 4 renders only the cells in view; with windowing off every output is in the page,
    so the test reads an output without scrolling to it first."""
    settings = home / "config" / "lab" / "user-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(home / "runtime"), JUPYTER_CONFIG_DIR=str(home / "config"),
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    env.pop("JUPYTER_CONFIG_PATH", None)
    return env


@pytest.fixture(scope="module")
def learner_lab(tmp_path_factory):
    """`make lab` on a scratch copy of notebooks/, so nothing the test types reaches the course's files."""
    home = tmp_path_factory.mktemp("learner-lab")
    shutil.copytree(ROOT / "notebooks", home / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    port = free_port()
    args = f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={TOKEN} --ServerApp.open_browser=False"
    cmd = ["make", "lab", f"NOTEBOOKS={home / 'notebooks'}", f"LAB_ARGS={args}"]
    with running_lab(cmd, cwd=ROOT, env=lab_env(home), log=home / "lab.log", port=port) as lab:
        lab.notebooks = home / "notebooks"
        yield lab


@pytest.fixture(scope="module")
def instructor_lab(tmp_path_factory):
    """`jupyter lab` started in (a scratch copy of) the course folder, as the README tells instructors."""
    home = tmp_path_factory.mktemp("instructor-lab")
    course = home / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    for folder in ("solutions", "notebooks"):
        shutil.copytree(ROOT / folder, course / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    port = free_port()
    cmd = [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={TOKEN}", *(["--allow-root"] if os.geteuid() == 0 else [])]
    with running_lab(cmd, cwd=course, env=lab_env(home), log=home / "lab.log", port=port) as lab:
        yield lab


@pytest.mark.slow
def test_make_lab_serves_jupyterlab_with_the_chapters(learner_lab):
    """Does `make lab` answer 200 on /lab, list the chapters, and keep only the learner's nbgrader tools?"""
    status, page = get(f"{learner_lab.base}/lab")
    assert status == 200
    assert "@jupyter/nbgrader" in page, "nbgrader's lab extension is not loaded"
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                  page, re.S).group(1))
    disabled = set(config.get("disabledExtensions", []))
    assert disabled >= {*INSTRUCTOR_PLUGINS, NEWS_PLUGIN}, f"the learner's Lab still enables {set(INSTRUCTOR_PLUGINS) - disabled}"
    assert "@jupyter/nbgrader:validate-assignment" not in disabled
    assert get(f"{learner_lab.base}/formgrader")[0] == 404, "the learner's Lab serves formgrader"

    status, listing = get(f"{learner_lab.base}/api/contents")
    assert status == 200
    assert {item["name"] for item in json.loads(listing)["content"]} >= set(CHAPTERS)
    status, kernels = get(f"{learner_lab.base}/api/kernelspecs")
    assert status == 200 and "python3" in json.loads(kernels)["kernelspecs"]


# --- the browser ------------------------------------------------------------------------------

def chromium() -> str:
    found = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.fail("no chromium to drive: run `make browser` (it runs `apt-get install chromium` on Debian/Ubuntu), "
                    "or set CHROMIUM=/path/to/chromium", pytrace=False)
    return found


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from playwright.sync_api import Error, sync_playwright

    path = chromium()
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        try:
            context = pw.chromium.launch_persistent_context(
                str(profile), executable_path=path, headless=True, args=CHROMIUM_FLAGS,
                viewport={"width": 1400, "height": 900})
        except Error as err:
            lines = [line.strip()[:200] for line in str(err).splitlines()
                     if line.strip() and "=====" not in line and not line.strip().startswith("<launching>")]
            pytest.fail(f"chromium ({path}) could not start: {' | '.join(lines[:4]) or type(err).__name__}",
                        pytrace=False)
        yield context
        context.close()


class Steps:
    """Names each step, and saves a screenshot of the page after it."""

    def __init__(self, page, prefix: str):
        self.page, self.prefix, self.count = page, prefix, 0
        SHOTS.mkdir(parents=True, exist_ok=True)
        for old in SHOTS.glob(f"{prefix}-*.png"):
            old.unlink()

    def shot(self, name: str) -> None:
        self.count += 1
        self.page.screenshot(path=str(SHOTS / f"{self.prefix}-{self.count:02d}-{name}.png"))


@contextmanager
def page_steps(browser, prefix: str):
    page = browser.new_page()
    steps = Steps(page, prefix)
    try:
        yield page, steps
    except BaseException:
        try:
            steps.shot("failed")
        finally:
            print(f"screenshots: {SHOTS}")
        raise
    finally:
        page.close()


def menubar(page) -> list[str]:
    return [t.strip() for t in page.locator(".lm-MenuBar-itemLabel").all_inner_texts()]


def sidebar_tabs(page) -> list[str]:
    return page.locator(".jp-SideBar .lm-TabBar-tab").evaluate_all(
        "tabs => tabs.map(t => t.getAttribute('title') || t.innerText || '')")


def cell_meta(chapter: str, grade_id: str) -> tuple[int, str]:
    """The index of the cell with `grade_id` in the learner notebook, and its solution's source."""
    learner = read_notebook(ROOT / "notebooks" / chapter / f"{chapter}.ipynb")
    index = next(i for i, c in enumerate(learner.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    solution = next(c for c in read_notebook(solution_path(chapter)).cells
                    if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    source = "\n".join(line for line in solution.source.splitlines()
                       if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))
    return index, source


def prompt_number(cell) -> int | None:
    """The execution count a code cell shows ([3]: is 3), None for [ ]: or [*]:."""
    match = re.search(r"\[(\d+)\]", cell.locator(".jp-InputArea-prompt").first.inner_text())
    return int(match.group(1)) if match else None


def wait_for_run(page, cell, *, after: int | None, timeout: float) -> None:
    """Wait until `cell` has run (a count above `after`), no cell is queued or running ([*]) and the
    kernel is idle: JupyterLab stops a run at the first cell that raises, so `cell` is the last
    one the run is expected to reach."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        count = prompt_number(cell)
        busy = page.locator(".jp-Notebook .jp-InputArea-prompt", has_text="[*]").count()
        idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").count()
        if count is not None and (after is None or count > after) and not busy and idle:
            return
        time.sleep(0.5)
    raise AssertionError(f"the cell had not run after {timeout:.0f} s; it shows: {cell.inner_text()[:300]}")


@pytest.mark.slow
def test_learner_runs_chapter_00_in_the_browser(learner_lab, browser):
    """In `make lab`, can a learner open chapter 00, run it all, see the self-checks, and pass one?"""
    chapter = "00_start_here"
    answer_index, answer = cell_meta(chapter, "ex1_answer")
    test_index = answer_index + 1
    with page_steps(browser, "learner") as (page, steps):
        page.goto(learner_lab.url())
        page.wait_for_selector(".jp-DirListing-item", timeout=90_000)
        listed = [t.split("\n")[0] for t in page.locator(".jp-DirListing-item .jp-DirListing-itemName").all_inner_texts()]
        steps.shot("file-browser")
        assert set(CHAPTERS) <= set(listed), f"the file browser lists {listed}"

        # The learner's Lab: no instructor tools, no news question (give it time to appear).
        page.wait_for_timeout(3000)
        steps.shot("no-instructor-tools")
        assert "Nbgrader" not in menubar(page), f"the learner's menu bar has {menubar(page)}"
        assert not any("Create Assignment" in t for t in sidebar_tabs(page)), sidebar_tabs(page)
        assert NEWS_QUESTION not in page.inner_text("body"), "the news pop-up is shown to the learner"

        page.locator(".jp-DirListing-item", has_text=chapter).dblclick()
        page.locator(".jp-DirListing-item", has_text=f"{chapter}.ipynb").dblclick()
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        # The kernel is ready when the status bar names it and says Idle; Run All before that asks
        # which kernel to start.
        page.locator(".jp-StatusBar-Widget", has_text=re.compile(r"Python 3 \(ipykernel\) \| Idle")).wait_for(timeout=120_000)
        steps.shot("chapter-open")
        assert page.locator(".jp-Notebook .jp-Cell").count() == len(read_notebook(
            ROOT / "notebooks" / chapter / f"{chapter}.ipynb").cells)

        # Run > Run All Cells. JupyterLab stops a run at the first cell that raises: exercise 1's
        # self-check, which says it is not answered yet.
        cells = page.locator(".jp-Notebook .jp-Cell")
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        wait_for_run(page, cells.nth(test_index), after=None, timeout=300)
        cells.nth(test_index).scroll_into_view_if_needed()
        steps.shot("run-all")
        first_code = page.locator(".jp-Notebook .jp-CodeCell").first
        assert prompt_number(first_code) == 1, "Run All did not start from the first cell"
        outputs = page.locator(".jp-Notebook .jp-OutputArea-output").all_inner_texts()
        waiting = [o for o in outputs if re.match(r"⏳ Exercise \S+ is not answered yet", o)]
        assert waiting, f"no self-check says 'not answered yet'; outputs: {[o[:80] for o in outputs]}"
        before = prompt_number(cells.nth(test_index))
        assert "Exercise 1 is not answered yet" in cells.nth(test_index).inner_text()
        assert "✅" not in cells.nth(test_index).inner_text()

        editor = cells.nth(answer_index).locator(".cm-content")
        editor.click()
        page.keyboard.press("Control+A")
        page.keyboard.insert_text(answer)     # as pasted: no auto-indent or auto-closed brackets
        steps.shot("answer-typed")
        page.keyboard.press("Shift+Enter")    # runs the answer, moves to its self-check
        page.keyboard.press("Shift+Enter")    # runs the self-check
        wait_for_run(page, cells.nth(test_index), after=before, timeout=120)
        cells.nth(test_index).scroll_into_view_if_needed()
        steps.shot("self-check-passed")
        verdict = cells.nth(test_index).locator(".jp-OutputArea").inner_text()
        assert "✅" in verdict and "not answered" not in verdict, f"the self-check says: {verdict[:300]}"
        assert NEWS_QUESTION not in page.inner_text("body"), "the news pop-up is shown to the learner"


@pytest.mark.slow
def test_instructor_lab_opens_formgrader_with_the_chapters(instructor_lab, browser):
    """In a Lab started in the course folder, are nbgrader's tools there, and does Formgrader list the chapters?"""
    with page_steps(browser, "instructor") as (page, steps):
        page.goto(instructor_lab.url())
        page.wait_for_selector(".jp-DirListing-item", timeout=90_000)
        page.wait_for_timeout(3000)
        steps.shot("lab")
        assert "Nbgrader" in menubar(page), f"the instructor's menu bar has {menubar(page)}"
        assert any("Create Assignment" in t for t in sidebar_tabs(page)), sidebar_tabs(page)
        # Without the learner's settings JupyterLab asks about news a few seconds after it starts:
        # the learner test, which looks for the question after 3 s and again at its end, would see it.
        page.get_by_text(NEWS_QUESTION).first.wait_for(timeout=30_000)

        page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Formgrader$")).click()
        frame = page.frame_locator("#formgrader iframe")
        rows = frame.locator("#main_table tr, table tr")
        deadline = time.monotonic() + 90
        names: list[str] = []
        while time.monotonic() < deadline:
            names = [t.strip() for t in frame.locator("body").all_inner_texts()]
            if all(c in " ".join(names) for c in CHAPTERS):
                break
            time.sleep(1)
        steps.shot("formgrader")
        text = " ".join(names)
        missing = [c for c in CHAPTERS if c not in text]
        assert not missing, f"Formgrader does not list {missing}; it shows: {text[:500]}"
        assert rows.count() >= len(CHAPTERS)
