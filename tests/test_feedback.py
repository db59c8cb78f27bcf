"""HTML feedback (`grader.autograde.feedback`): no hidden test's code, nothing a learner wrote that runs, exercises named."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import nbformat
import pytest

from conftest import ROOT
from test_worker import CHAPTER, LIMITS, _notebook

#: The tiny chapter's hidden check, which only the instructor's copy has.
HIDDEN_LINE = 'checks.equal(double(5), 10, what="double(5)", hint="double every input, not only 2")'

#: A learner's answer: right at the visible check only, and hostile in every way an output can be.
HOSTILE_ANSWER = '''def double(x):
    return 4 if x == 2 else 0

from IPython.display import HTML, SVG, Javascript, Markdown, display
display(HTML('<b>kept bold</b><script>alert("html")</script><img src="x" onerror="alert(1)">'
             '<a href="javascript:alert(2)">a link</a><a href=" JaVa\\tScRiPt:alert(3)">another</a>'
             '<iframe src="https://example.org"></iframe><div onmouseover="alert(4)">hover</div>'
             '<style>body { display: none }</style><object data="x.swf"></object><form action="https://example.org">'
             '<input name="q"></form>'))
display(Javascript('alert("javascript output")'))
display(Markdown('<script>alert("markdown output")</script>[click](javascript:alert(5))'))
display(SVG('<svg xmlns="http://www.w3.org/2000/svg"><script>alert("svg")</script>'
            '<a href="javascript:alert(6)"><text y="10">t</text></a></svg>'))
display({"image/png": '" onerror="alert(7)', "text/plain": "an image"}, raw=True)
'''

HOSTILE_MARKDOWN = ('A note of mine <script>alert("cell")</script> <img src=x onerror=alert(8)> '
                    '[x](javascript:alert(9)) <iframe src="https://example.org"></iframe> <b>bold in markdown</b>\n\n'
                    '<a href="#" onclick="alert(10)">click</a> <details open ontoggle="alert(11)"><summary>s</summary></details>')


class _Active(HTMLParser):
    """Finds what would run in a browser: scripts outside the head, event handlers, javascript: addresses,
    frames and objects."""

    def __init__(self):
        super().__init__()
        self.found, self.in_head, self.heads, self.script = [], False, 0, None

    def handle_starttag(self, tag, attrs):
        if tag == "head":
            self.heads += 1
            self.in_head = self.heads == 1
        if tag == "script":
            self.script = [tag, self.in_head, ""]
        if tag in ("iframe", "frame", "object", "embed", "applet", "form", "base"):
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"{tag}[{name}]")
            if value and re.sub(r"[\x00-\x20]", "", value).lower().startswith(("javascript:", "vbscript:", "data:text")):
                self.found.append(f"{tag}[{name}={value[:40]}]")

    def handle_endtag(self, tag):
        if tag == "head":
            self.in_head = False
        if tag == "script" and self.script is not None:
            _, in_head, text = self.script
            if not in_head or "alert" in text:
                self.found.append(f"<script>{text[:60]}")
            self.script = None

    def handle_data(self, data):
        if self.script is not None:
            self.script[2] += data


def active_content(page: str) -> list[str]:
    parser = _Active()
    parser.feed(page)
    return parser.found


def text_of(page: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page)))


def hidden_lines(chapter: str) -> set[str]:
    """The lines of a chapter's hidden tests that appear nowhere else in its solution, whitespace collapsed."""
    from grader.course import HIDDEN, PUBLIC, read_notebook, regions, solution_path

    cells = [regions(c.source) for c in read_notebook(solution_path(chapter)).cells if c.cell_type == "code"]
    public = {" ".join(line.split()) for lines in cells for where, line in lines if where == PUBLIC}
    hidden = {" ".join(line.split()) for lines in cells for where, line in lines if where == HIDDEN}
    return {line for line in hidden - public if len(line) > 12}


def leaked_hidden_lines(page: str, chapter: str) -> list[str]:
    """The hidden-test lines of `chapter` that a feedback page shows."""
    text = text_of(page)
    return sorted(line for line in hidden_lines(chapter) if line in text)


def _course(tmp_path):
    """The tiny chapter, its test cell with a hidden check; a hostile submission from mallory (made from the
    solution as a release would make it: answer stubbed, hidden region gone, then answered)."""
    from grader.course import visible_source

    course = tmp_path / "course"
    (course / "solutions" / CHAPTER).mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    source = _notebook("def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION\n")
    source.cells[2].source += f"\n    ### BEGIN HIDDEN TESTS\n    {HIDDEN_LINE}\n    ### END HIDDEN TESTS"
    nbformat.write(source, course / "solutions" / CHAPTER / f"{CHAPTER}.ipynb")
    nb = nbformat.from_dict(json.loads(json.dumps(source)))
    nb.cells[1].source = HOSTILE_ANSWER
    nb.cells[2].source = visible_source(nb.cells[2].source)
    nb.cells.insert(2, nbformat.v4.new_markdown_cell(HOSTILE_MARKDOWN))
    (course / "submitted" / "mallory" / CHAPTER).mkdir(parents=True)
    nbformat.write(nb, course / "submitted" / "mallory" / CHAPTER / f"{CHAPTER}.ipynb")
    return course


#: What formgrader does when its Autograde and Generate Feedback buttons are pressed: nbgrader's API with
#: the configuration nbgrader reads in the course folder.
FORMGRADER = """
import json, sys
from nbgrader.apps.api import NbGraderAPI
from nbgrader.apps.baseapp import NbGrader
app = NbGrader()
app.load_config_file()
api = NbGraderAPI(config=app.config)
done = [api.autograde(sys.argv[1], "mallory", force=True), api.generate_feedback(sys.argv[1], "mallory", force=True)]
print(json.dumps([{k: r.get(k) for k in ("success", "log", "error")} for r in done]))
"""


def _page(course) -> str:
    return (course / "feedback" / "mallory" / CHAPTER / f"{CHAPTER}.html").read_text(encoding="utf-8")


@pytest.mark.slow  # the tiny chapter's kernel (no JAX) twice: by `grader autograde`, then by nbgrader's own autograde
def test_feedback_from_either_path_shows_verdicts_not_hidden_code_and_runs_nothing_a_learner_wrote(tmp_path):
    """A submission whose outputs and markdown carry scripts, event handlers, javascript: links, frames, a form,
    a JavaScript output, an SVG with a script and an image whose data breaks out of its attribute: graded by
    `grader autograde` and again by formgrader's buttons (nbgrader's API), is its feedback free of active
    content, its plain markup kept? Does each page leave out the hidden check's code while showing its verdict
    and hint, name the exercise in its summary, and show the code once `c.FeedbackExporter.show_hidden_tests`
    is set?"""
    from grader.autograde import autograde

    course = _course(tmp_path)
    summary = autograde(course, progress=False, limits=LIMITS)
    assert [(r.student, str(r.status), r.score) for r in summary.rows] == [("mallory", "graded", 0.0)], summary.rows
    assert not summary.problems and not any("feedback" in note for note in summary.rows[0].notes), summary.rows
    by_grader = _page(course)

    proc = subprocess.run([sys.executable, "-c", FORMGRADER, CHAPTER], cwd=course, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    graded, fed = json.loads(proc.stdout.strip().splitlines()[-1])
    assert graded["success"] and fed["success"], (graded, fed)
    for said in ("has changed", "not recognized", "active content"):  # no warning of the course's own making
        assert said not in graded["log"] + fed["log"], graded["log"] + fed["log"]
    by_formgrader = _page(course)

    for page, verdict in ((by_grader, "Graded: 0 / 1 — Exercise 1: double(5): expected 10, got 0"),
                          (by_formgrader, "Exercise 1: double(5): expected 10, got 0")):
        assert active_content(page) == [], active_content(page)
        text = text_of(page)
        assert "kept bold" in text and "bold in markdown" in text and "a link" in text, text[-3000:]
        assert verdict in text and "double every input, not only 2" in text, text[-3000:]
        assert "double(5), 10" not in page and "HIDDEN TESTS" not in page, "the hidden check's code is in the feedback"
        assert "hidden checks ran here" in text
        assert re.search(r'<a href="#ex1_test">Exercise 1</a> \(Score: 0\.0 / 1\.0\)', page), page[:4000]
        assert ">Test cell<" not in page

    # The one setting that shows the code, read as nbgrader reads the course's nbgrader_config.py and given to
    # the exporter as nbgrader's feedback converter makes it.
    from nbgrader.converters import GenerateFeedback

    from grader.autograde import feedback
    from grader.autograde.config import load

    autograded = nbformat.read(course / "autograded" / "mallory" / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    resources = {"nbgrader": {"notebook": CHAPTER, "score": 0, "max_score": 1, "late_penalty": 0}}
    for cell in autograded.cells:  # what nbgrader's GetGrades puts in before the page is made
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata.nbgrader["score"] = 0.0
    for setting, shown in (("", False), ("c.FeedbackExporter.show_hidden_tests = True", True)):
        with open(course / "nbgrader_config.py", "a") as f:
            f.write(f"\n{setting}\n")
        converter = GenerateFeedback(config=load(course))
        exporter = converter.exporter_class(parent=converter, config=converter.config)
        assert type(exporter) is feedback.FeedbackExporter
        page, _ = exporter.from_notebook_node(autograded, resources)
        assert ("### END HIDDEN TESTS" in text_of(page)) is shown and active_content(page) == []


def test_a_test_cell_loses_its_hidden_region_and_any_traceback_that_quotes_it():
    """Is a test cell's hidden region replaced by one comment line, and a traceback quoting a hidden line cut
    to the error's type and message, while a visible line's traceback stays?"""
    from grader.autograde import feedback

    cell = nbformat.v4.new_code_cell('"""Exercise 2: f."""\ncheck(f(1))\n### BEGIN HIDDEN TESTS\nassert f(7) == 49\n'
                                     "### END HIDDEN TESTS\n",
                                     metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": "ex2_test",
                                                            "points": 1}})
    cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue="",
                                           traceback=["Traceback", "----> 4 assert f(7) == 49", "AssertionError: "]),
                    nbformat.v4.new_output("error", ename="NameError", evalue="name 'f' is not defined",
                                           traceback=["----> 2 check(f(1))", "NameError: name 'f' is not defined"])]
    feedback.hide_hidden_tests(cell)
    assert "f(7)" not in cell.source and "HIDDEN" not in cell.source and "check(f(1))" in cell.source
    assert cell.source.splitlines()[-1].startswith("# (1 line of hidden checks ran here")
    assert cell.outputs[0].traceback == ["AssertionError: "]
    assert cell.outputs[1].traceback == ["----> 2 check(f(1))", "NameError: name 'f' is not defined"]


@pytest.mark.parametrize("url, image, safe", [
    ("https://example.org", False, True), ("#top", False, True), ("notes.html", False, True),
    ("javascript:alert(1)", False, False), (" jAvAsCrIpT:alert(1)", False, False), ("java\tscript:x", False, False),
    ("vbscript:x", False, False), ("data:text/html,<script>", False, False), ("data:image/png;base64,iVBOR", True, True),
    ("data:image/png;base64,iVBOR", False, False), ("data:image/svg+xml;base64,PHN2Zz4=", True, True),
    ("data:image/svg+xml;base64,PHN2Zz4=", False, False)])
def test_only_addresses_that_lead_somewhere_are_kept(url, image, safe):
    """Does `safe_url` keep web, mail, anchor and relative addresses (and a raster data image in an img), and
    refuse javascript:, vbscript: and other data: addresses however they are spelled?"""
    from grader.autograde import feedback

    assert feedback.safe_url(url, image=image) is safe
