"""JupyterLab as learners and instructors meet it: `make lab` over HTTP, then both Labs in a real browser,
and one chapter round the course's exchange from formgrader's buttons and a learner's Assignments page.

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
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from conftest import CHAPTERS, ROOT
from grader.course import grade_cells, read_notebook, solution_path

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


#: The course id the browser's class uses: this run's own, so that its folder in the shared exchange
#: (the course's, /tmp/exchange) is apart from any other class or test run on the machine.
CLASS_ID = f"jax-beyond-jnp-browser-test-{os.getpid()}"


def course_config(name: str):
    """A setting of the course's nbgrader_config.py, as nbgrader reads it."""
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config().Exchange[name]


@pytest.fixture(scope="module")
def instructor_lab(tmp_path_factory):
    """`jupyter lab` with the instructor's settings (lab/instructor/), started in a scratch copy of the
    course folder, as the README tells instructors. The copy's nbgrader_config.py is the course's,
    with this run's course id, so its chapters go to the course's exchange under a folder of their
    own, removed after the tests."""
    home = tmp_path_factory.mktemp("instructor-lab")
    course = home / "course"
    course.mkdir()
    config = (ROOT / "nbgrader_config.py").read_text()
    (course / "nbgrader_config.py").write_text(config + f"\n# The browser test's own class.\n"
                                               f"c.CourseDirectory.course_id = {CLASS_ID!r}\n")
    for folder in ("solutions", "notebooks"):
        shutil.copytree(ROOT / folder, course / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    # The class's first step, as `make release` takes it (which runs `grader release`); formgrader's own
    # Generate is never clicked, so its Release, Collect and Autograde must work after this alone.
    from grader.release import release

    release([CHAPTERS[0]], root=course)
    port = free_port()
    cmd = [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={TOKEN}", *(["--allow-root"] if os.geteuid() == 0 else [])]
    env = dict(lab_env(home), JUPYTER_CONFIG_PATH=str(ROOT / "lab" / "instructor"))
    try:
        with running_lab(cmd, cwd=course, env=env, log=home / "lab.log", port=port) as lab:
            lab.course = course
            yield lab
    finally:
        shutil.rmtree(Path(course_config("root")) / CLASS_ID, ignore_errors=True)


@pytest.fixture(scope="module")
def class_lab(tmp_path_factory):
    """`make class-lab`, a learner's Lab in a class (lab/class/), started in the learner's own home with an
    nbgrader config naming the class and its exchange (README, "The exchange"): nbgrader's Assignments page
    on, the instructor's tools and the news question off. (`make lab`, for learners who study alone, has no
    Assignments page.)"""
    home = tmp_path_factory.mktemp("class-learner")
    env = lab_env(home)
    (Path(env["JUPYTER_CONFIG_DIR"]) / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = {CLASS_ID!r}\n"
        f"c.Exchange.root = {course_config('root')!r}\nc.Exchange.cache = {str(home / 'nbgrader-cache')!r}\n")
    port = free_port()
    args = f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={TOKEN} --ServerApp.open_browser=False"
    cmd = ["make", "class-lab", f"CLASS_DIR={home}", f"LAB_ARGS={args}"]
    with running_lab(cmd, cwd=ROOT, env=dict(env, HOME=str(home)), log=home / "lab.log", port=port) as lab:
        lab.home = home
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


def open_formgrader(page):
    """Nbgrader > Formgrader; returns the formgrader's frame once its assignments are listed."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Formgrader$")).click()
    frame = page.frame_locator("#formgrader iframe")
    frame.locator("td.name", has_text=CHAPTERS[0]).first.wait_for(timeout=90_000)
    return frame


def exchange_warnings(frame) -> list[str]:
    """The warnings formgrader shows above its assignments: no exchange, Windows, no course id."""
    return [t.strip() for t in frame.locator("#warning-exchange, #warning-windows, #warning-course-id").all_inner_texts()]


@pytest.mark.slow
def test_instructor_lab_opens_formgrader_with_the_chapters(instructor_lab, browser):
    """In the instructor's Lab, are nbgrader's tools there, with no news question, and does Formgrader
    list the chapters with release and collect available (no warning about the exchange)?"""
    with page_steps(browser, "instructor") as (page, steps):
        page.goto(instructor_lab.url())
        page.wait_for_selector(".jp-DirListing-item", timeout=90_000)
        page.wait_for_timeout(3000)
        steps.shot("lab")
        assert "Nbgrader" in menubar(page), f"the instructor's menu bar has {menubar(page)}"
        assert any("Create Assignment" in t for t in sidebar_tabs(page)), sidebar_tabs(page)
        assert NEWS_QUESTION not in page.inner_text("body"), "the news pop-up is shown to the instructor"

        frame = open_formgrader(page)
        names: list[str] = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            names = [t.strip() for t in frame.locator("td.name").all_inner_texts()]
            if set(CHAPTERS) <= set(names):
                break
            time.sleep(1)
        steps.shot("formgrader")
        missing = [c for c in CHAPTERS if c not in names]
        assert not missing, f"Formgrader does not list {missing}; it lists: {names}"
        assert not exchange_warnings(frame), f"formgrader warns: {exchange_warnings(frame)}"
        release = assignment_row(frame, CHAPTERS[0]).locator("td.release a")
        assert release.count() == 1, "formgrader offers no Release button"
        assert NEWS_QUESTION not in page.inner_text("body"), "the news pop-up is shown to the instructor"


def formgrader_action(frame, row, cell: str, *, expect: str, timeout: float = 120) -> str:
    """Click the link in `cell` of a formgrader table row, wait for the dialog it opens, check that
    it reports success with `expect` in its words, close it, and return its words."""
    row.locator(f"td.{cell} a").click()
    modal = frame.locator(".modal.in, .modal.show").last
    modal.locator(".modal-title").wait_for(timeout=timeout * 1000)
    words = modal.locator(".modal-body").inner_text()
    title = modal.locator(".modal-title").inner_text().strip()
    assert title == "Success" and expect in words, f"{cell}: formgrader says {title}: {words[:2000]}"
    modal.locator(".modal-footer button").click()
    modal.wait_for(state="detached", timeout=10_000)
    return words


def assignment_row(frame, chapter: str):
    return frame.locator("tr", has=frame.locator("td.name", has_text=chapter)).first


def answered_except(path: Path, chapter: str, skipped: str) -> None:
    """Write the reference answer into every answer cell of the fetched notebook but `skipped`, as
    the learner would have typed them (typing in the browser is the learner test's part)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and grade_id != skipped:
            cell.source = cell_meta(chapter, grade_id)[1]
    nbformat.write(nb, path)


#: What formgrader's dialogs may not say: warnings that come from the course's own configuration or steps.
OUR_WARNINGS = ("has changed", "not recognized", "active content")


@pytest.mark.slow
def test_a_chapter_goes_round_the_exchange_from_the_formgraders_buttons(instructor_lab, class_lab, browser):
    """After `make release` alone, from the formgrader's buttons (Release, Collect, Autograde, feedback) and a
    class learner's Lab (`make class-lab`: its Assignments page there, Formgrader and Create Assignment not),
    in a real browser: is chapter 00 released, fetched, submitted, collected and autograded with no warning of
    the course's making, its score shown in the formgrader, its unanswered exercise in `grader report`'s first
    failures, and its feedback returned to the learner, naming the exercises and without the hidden tests'
    code or anything that runs?"""
    from nbgrader.utils import get_username

    from test_feedback import active_content, hidden_lines, leaked_hidden_lines

    chapter = "00_start_here"
    cells = grade_cells(read_notebook(solution_path(chapter)))
    most = sum(float(c.metadata.nbgrader.points) for c in cells)
    # The learner answers every exercise but the third.
    expected = most - next(float(c.metadata.nbgrader.points) for c in cells if c.metadata.nbgrader.grade_id == "ex3_test")
    student = get_username()        # nbgrader knows a learner by login name: here, the test's own
    teacher = browser.new_page()
    with closing(teacher), page_steps(browser, "round-trip") as (page, steps):
        steps.page = teacher
        teacher.goto(instructor_lab.url())
        teacher.wait_for_selector(".jp-DirListing-item", timeout=90_000)
        frame = open_formgrader(teacher)
        assert not exchange_warnings(frame), f"formgrader warns: {exchange_warnings(frame)}"
        row = assignment_row(frame, chapter)
        # Released as `make release` left it: no Generate first.
        said = formgrader_action(frame, row, "release", expect="Successfully released")
        assert not [w for w in OUR_WARNINGS if w in said], said
        row.locator("td.status", has_text="released").wait_for(timeout=30_000)
        steps.shot("released")

        # The class learner's Lab: the Assignments page, and none of the instructor's tools.
        steps.page = page
        page.goto(class_lab.url())
        page.wait_for_selector(".jp-DirListing-item, .jp-DirListing-content", timeout=90_000)
        page.wait_for_timeout(3000)  # time for the news question to appear, were it not turned off
        steps.shot("class-lab")
        assert NEWS_QUESTION not in page.inner_text("body"), "the news pop-up is shown to the class learner"
        assert not any("Create Assignment" in t for t in sidebar_tabs(page)), sidebar_tabs(page)
        assert get(f"{class_lab.base}/formgrader")[0] == 404, "the class learner's Lab serves formgrader"
        page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
        items = [t.strip() for t in page.locator(".lm-Menu-itemLabel").all_inner_texts()]
        assert "Assignment List" in items and "Formgrader" not in items and "Course List" not in items, items
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Assignment List$")).click()
        released = page.locator("#released_assignments_list .list_item", has_text=chapter)
        released.wait_for(timeout=60_000)
        steps.shot("assignment-list")
        released.locator("button", has_text="Fetch").click()
        fetched = page.locator("#fetched_assignments_list .list_item", has_text=chapter).first
        fetched.wait_for(timeout=60_000)
        notebook = class_lab.home / chapter / f"{chapter}.ipynb"
        assert notebook.read_bytes() == (instructor_lab.course / "notebooks" / chapter / f"{chapter}.ipynb").read_bytes()
        answered_except(notebook, chapter, "ex3_answer")
        fetched.locator("button", has_text="Submit").click()
        page.locator("#submitted_assignments_list .list_item", has_text=chapter).first.wait_for(timeout=60_000)
        steps.shot("submitted")

        # The instructor collects and autogrades it; the score appears in the formgrader.
        steps.page = teacher
        formgrader_action(frame, row, "collect", expect="Successfully collected")
        row.locator("td.num-submissions a", has_text="1").click()
        submission = frame.locator("tr", has=frame.locator("td.student-id", has_text=student)).first
        submission.wait_for(timeout=30_000)
        steps.shot("collected")
        said = formgrader_action(frame, submission, "autograde", expect="Successfully autograded", timeout=600)
        assert not [w for w in OUR_WARNINGS if w in said], said
        score = submission.locator("td.score")
        score.filter(has_text="/").wait_for(timeout=30_000)
        steps.shot("autograded")
        assert score.inner_text().strip() == f"{expected:g} / {most:g}", submission.inner_text()
        assert "graded" in submission.locator("td.status").inner_text()
        # What the class got wrong, from the gradebook and the verdict formgrader's autograde recorded.
        from grader.autograde.class_report import report as class_report

        section = class_report(course=instructor_lab.course, chapter=chapter).read_text()
        assert f"1 submission with a score: mean {expected:g} of {most:g} points; 0 of 1 (0%) at full marks." in section
        assert re.search(r"\| Exercise 3 \| `Exercise 3 is not answered yet` \| 1 \| ``Exercise 3 is not answered yet: "
                         r"replace `raise NotImplementedError\(\)` in its answer cell with your code, run that cell, "
                         r"then this one.`` \|", section), section

        # Feedback: generated and released from the formgrader, fetched from the Assignments page.
        said = formgrader_action(frame, submission, "generate-feedback", expect="Successfully generated feedback")
        assert not [w for w in OUR_WARNINGS if w in said], said
        formgrader_action(frame, submission, "release-feedback", expect="Successfully released feedback")
        steps.page = page
        page.locator("#refresh_assignments_list").click()
        feedback = page.locator("#submitted_assignments_list button", has_text="Fetch Feedback").first
        feedback.wait_for(timeout=60_000)
        feedback.click()
        page.locator("#submitted_assignments_list", has_text="view feedback").wait_for(timeout=60_000)
        steps.shot("feedback-fetched")
    pages = sorted((class_lab.home / chapter / "feedback").glob(f"*/{chapter}.html"))
    assert len(pages) == 1, pages
    html = pages[0].read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    scores = re.findall(r"Score: ([\d.]+) / ([\d.]+)", text)
    assert scores and tuple(map(float, scores[0])) == (expected, most), scores[:5]
    assert hidden_lines(chapter) and leaked_hidden_lines(html, chapter) == [], leaked_hidden_lines(html, chapter)
    assert '<a href="#ex1_test">Exercise 1</a>' in html and ">Test cell<" not in html
    assert active_content(html) == [], active_content(html)
