"""The HTML feedback a learner gets back: verdicts without the hidden tests' code, and nothing that runs.

nbgrader makes the feedback (`nbgrader generate_feedback`, which `grader autograde` runs and formgrader's
*Generate Feedback* button calls) with an HTML exporter; the course's nbgrader_config.py names this one
(`c.GenerateFeedback.exporter_class`), so every path to feedback goes through it:

- **Hidden tests.** A test cell is shown as the learner's notebook had it: its hidden region is left out
  (one comment line says the checks there ran when grading), and an error whose traceback would quote a
  hidden line is shown as its type and message only. Each hidden check's verdict and hint still show:
  `grader autograde` writes them under the cell, and nbgrader's own autograde records the check's
  message. `c.FeedbackExporter.show_hidden_tests = True` shows the code as well.
- **Active content.** A submission is the learner's to write, and so are its outputs and markdown. An
  HTML or markdown output, a markdown cell and an instructor's comment are cut down to plain markup
  (`clean_fragment`: no script, style, frame, object, form, event handler or javascript: link); outputs
  of other kinds that a page would run or embed (JavaScript, widgets, PDF, …) are replaced by a line
  saying so; images must be base64 PNG, JPEG or GIF. Last, the whole page is read again
  (`neutralise_page`) and anything active left outside the template's own head is taken out, so that
  nothing a learner wrote runs in the browser of whoever opens the page.
- **Names.** The summary at the top names each test cell by its exercise ("Exercise 1"), from the
  first line of the instructor's docstring, not "Test cell".
"""

from __future__ import annotations

import base64
import binascii
import copy
import re
from pathlib import Path

from jinja2 import DictLoader, FileSystemLoader, PrefixLoader, pass_context
from nbconvert.exporters import HTMLExporter
from traitlets import Bool

from grader.course import HIDDEN, BEGIN_HIDDEN, END_HIDDEN, cell_title, regions

#: What stands where a test cell's hidden region was.
HIDDEN_NOTE = "# ({n} line{s} of hidden checks ran here when your notebook was graded: their verdicts are below)"

#: Output kinds shown as they are (text, images) or cleaned (HTML, markdown); LaTeX is shown as text by the
#: template and typeset by MathJax's Safe mode, SVG as an image (<img src="data:…">, where an SVG runs no
#: script); any other is replaced by a line saying it is not shown.
SHOWN = ("text/plain", "text/html", "text/markdown", "text/latex", "image/png", "image/jpeg", "image/gif",
         "image/svg+xml")
IMAGES = ("image/png", "image/jpeg", "image/gif")

# ---- cleaning a fragment of HTML --------------------------------------------------------------

#: Elements removed with all they hold.
DROPPED = {"script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "noscript", "template",
           "base", "link", "meta", "form", "input", "button", "select", "textarea", "svg", "math", "canvas",
           "audio", "video", "source", "track", "portal", "dialog", "title", "head", "html", "body"}
#: Elements kept (others are replaced by what they hold).
KEPT = {"a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd", "del", "details",
        "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img",
        "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strong", "sub", "summary",
        "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", "var"}
#: Attributes kept, on any kept element; `href` and `src` only with a safe address (`safe_url`).
ATTRIBUTES = {"class", "id", "title", "alt", "href", "src", "width", "height", "colspan", "rowspan", "align",
              "start", "open", "scope", "name"}
#: Addresses an attribute may hold: the web, mail, an anchor or a relative path, and inline images (an
#: SVG shown as an image runs no script).
SAFE_SCHEMES = ("http", "https", "mailto")
SAFE_DATA = re.compile(r"data:image/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=\s]*$", re.I)
#: Attributes whose value is an address, in any element of a page.
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "background", "srcset",
                  "lowsrc", "dynsrc", "ping", "cite", "longdesc", "usemap", "manifest", "codebase", "archive"}


def safe_url(value: str, *, image: bool = False) -> bool:
    """An address that only leads somewhere (the web, mail, an anchor, a relative path) or, for an
    image, holds a base64 raster image: never javascript:, vbscript:, data:text/html and the like."""
    text = re.sub(r"[\x00-\x20\x7f]+", "", str(value))  # browsers ignore these inside a scheme
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.\-]*):", text)
    if scheme is None:
        return True
    if scheme.group(1).lower() in SAFE_SCHEMES:
        return True
    return image and bool(SAFE_DATA.match(str(value).strip()))


def clean_fragment(html: str) -> str:
    """A fragment of a learner's HTML cut down to plain markup (`KEPT` elements, `ATTRIBUTES`, safe
    addresses), its text kept; the contents of `DROPPED` elements and every comment go."""
    from bs4 import BeautifulSoup, Comment

    soup = BeautifulSoup(html, "html.parser")
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    for tag in soup.find_all(True):
        if tag.decomposed:
            continue
        name = tag.name.lower()
        if name in DROPPED or ":" in name:
            tag.decompose()
        elif name not in KEPT:
            tag.unwrap()
        else:
            for attribute in list(tag.attrs):
                value = tag.attrs[attribute]
                value = " ".join(value) if isinstance(value, list) else str(value)
                if attribute.lower() not in ATTRIBUTES or (
                        attribute.lower() in ("href", "src") and not safe_url(value, image=name == "img")):
                    del tag.attrs[attribute]
    return str(soup)


#: Elements taken out of a whole page, outside the template's head, with all they hold: what runs code,
#: loads another page into this one, sends a form, changes the page's address or animates an address.
PAGE_DROPPED = {"script", "iframe", "frame", "frameset", "object", "embed", "applet", "portal", "base", "form",
                "link", "animate", "set", "animatemotion", "animatetransform", "handler", "listener"}


def neutralise_page(html: str) -> tuple[str, list[str]]:
    """A whole feedback page with anything active outside its head taken out: every script, frame,
    object, form and the like (`PAGE_DROPPED`), a refreshing meta, every event-handler attribute, every
    address that would run code. The page's first head is the template's own (MathJax); nothing a
    learner wrote is rendered there. Returns the page and what was taken out (nothing, when the
    cleaning before did its work)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    head = soup.find("head")
    removed = []
    for tag in soup.find_all(True):
        if tag.decomposed or tag is head or (head is not None and head in tag.parents):
            continue
        name = tag.name.lower()
        if name in PAGE_DROPPED or (name == "meta" and tag.get("http-equiv")):
            removed.append(f"<{name}>")
            tag.decompose()
            continue
        for attribute in list(tag.attrs):
            value = tag.attrs[attribute]
            value = " ".join(value) if isinstance(value, list) else str(value)
            low = attribute.lower()
            if low.startswith("on") or low == "srcdoc" or (
                    low in URL_ATTRIBUTES and not safe_url(value, image=name == "img" and low == "src")) or (
                    low == "style" and re.search(r"javascript:|expression\s*\(|url\s*\(", value, re.I)):
                removed.append(f"{name}[{attribute}]")
                del tag.attrs[attribute]
    return (str(soup) if removed else html), removed


# ---- the notebook before it is rendered ---------------------------------------------------------

def _is_test_cell(cell) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def hide_hidden_tests(cell) -> None:
    """A test cell as the learner's notebook had it: without its hidden region (one comment line in its
    place), and without a traceback that quotes a line of it (its error's type and message stay)."""
    lines, hidden, out, counted = regions(cell.source), [], [], 0
    for where, line in lines:
        if where == BEGIN_HIDDEN:
            counted = 0
        elif where == HIDDEN:
            counted += 1
            if line.strip():
                hidden.append(line.strip())
        elif where == END_HIDDEN:
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + HIDDEN_NOTE.format(n=counted, s="" if counted == 1 else "s"))
        else:
            out.append(line)
    if not hidden and not any(where == BEGIN_HIDDEN for where, _ in lines):
        return
    cell.source = "\n".join(out)
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            text = "\n".join(output.get("traceback", []))
            if any(line in text for line in hidden):
                output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]


def _valid_base64(data) -> bool:
    try:
        base64.b64decode("".join(data) if isinstance(data, list) else str(data), validate=False)
    except (binascii.Error, ValueError):
        return False
    return bool(re.fullmatch(r"[A-Za-z0-9+/=\s]*", "".join(data) if isinstance(data, list) else str(data)))


def clean_output(output) -> None:
    """An output as the feedback may show it: only `SHOWN` kinds, HTML cleaned, images checked, and
    none of its metadata but an image's numeric size."""
    if output.get("output_type") not in ("display_data", "execute_result"):
        return
    data = output.get("data", {})
    dropped = sorted(kind for kind in data if kind not in SHOWN or (kind in IMAGES and not _valid_base64(data[kind])))
    for kind in dropped:
        del data[kind]
    if "text/html" in data:
        html = data["text/html"]
        data["text/html"] = clean_fragment("".join(html) if isinstance(html, list) else str(html))
    if not data:
        data["text/plain"] = f"(an output of type {', '.join(dropped) or 'none'} is not shown in feedback)"
    sizes = {}
    for kind, meta in dict(output.get("metadata", {})).items():
        if kind in IMAGES and isinstance(meta, dict):
            size = {k: v for k, v in meta.items() if k in ("width", "height") and isinstance(v, (int, float))
                    and not isinstance(v, bool)}
            if size:
                sizes[kind] = size
    output["metadata"] = sizes


def prepare(nb, *, show_hidden_tests: bool = False) -> dict[str, str]:
    """Make `nb` (a copy) safe to render as feedback, in place; returns each test cell's exercise title."""
    titles = {}
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id") is not None:
            meta["grade_id"] = re.sub(r"[^A-Za-z0-9_.\-]", "_", str(meta["grade_id"]))
        if _is_test_cell(cell):
            titles[meta["grade_id"]] = cell_title(cell).split(":")[0]
            if not show_hidden_tests:
                hide_hidden_tests(cell)
        for output in cell.get("outputs", []):
            clean_output(output)
        attachments = cell.get("attachments")
        if attachments:
            for name in list(attachments):
                kept = {k: v for k, v in attachments[name].items() if k in IMAGES and _valid_base64(v)}
                if kept:
                    attachments[name] = kept
                else:
                    del attachments[name]
    return titles


# ---- the exporter ----------------------------------------------------------------------------

#: The summary at the top of the page, naming each graded cell by its exercise; the page itself is
#: nbgrader's feedback template (its body's notebook, two levels up: `super.super()`).
TEMPLATE = """{%- extends 'nbgrader/feedback/index.html.j2' -%}
{% block body %}
<body>
  <a name="top"></a>
  <div class="container">
    <div class="panel panel-default">
      <div class="panel-heading">
        <h4>{{ resources.nbgrader.notebook | e }} (Score: {{ resources.nbgrader.score | float | round(2) }} / {{ resources.nbgrader.max_score | float | round(2) }})</h4>
        <div id="toc">
          <ol>
          {%- for cell in nb.cells %}
            {%- set marks = cell.metadata.nbgrader %}
            {%- if marks and (marks.grade or marks.task) %}
            {%- if marks.grade and not marks.solution and cell.cell_type == "code" %}
              {%- set name = resources.exercise_titles.get(marks.grade_id, "Test cell") %}
            {%- elif marks.task %}{% set name = "Task" %}
            {%- elif cell.cell_type == "markdown" %}{% set name = "Written answer" %}
            {%- else %}{% set name = "Answer graded by hand" %}{% endif %}
            <li><a href="#{{ marks.grade_id | e }}">{{ name | e }}</a> (Score: {{ marks.score | float | round(2) }} / {{ marks.points | float | round(2) }})</li>
            {%- endif %}
            {%- if marks and marks.comment %}
            <li><a href="#comment-{{ marks.grade_id | e }}">Comment</a></li>
            {%- endif %}
          {%- endfor %}
          {%- if resources.nbgrader.late_penalty > 0 %}
            <li class="late-penalty">Late submission penalty (Score: -{{ resources.nbgrader.late_penalty | float | round(2) }})</li>
          {%- endif %}
          </ol>
        </div>
      </div>
      <div class="panel-body">
        <div id="notebook" class="border-box-sizing">
          <div class="container" id="notebook-container">
            {{ super.super() }}
          </div>
        </div>
      </div>
    </div>
  </div>
</body>
{%- endblock body %}
"""


def _nbgrader_templates() -> str:
    import nbgrader

    return str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates")


class FeedbackExporter(HTMLExporter):
    """nbgrader's feedback page, with hidden tests' code left out, nothing a learner wrote that runs, and
    exercises named in its summary (see the module's docstring)."""

    show_hidden_tests = Bool(False, help="Show the code of each test cell's hidden region in feedback (by "
                                         "default only the verdicts and hints of its checks)").tag(config=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Tried before nbconvert's own loaders: the page (this module's TEMPLATE, under the name nbgrader's
        # feedback converter asks for) and nbgrader's feedback template under a prefix of its own.
        self.extra_loaders = [DictLoader({"index.html.j2": TEMPLATE}),
                              PrefixLoader({"nbgrader": FileSystemLoader(_nbgrader_templates())})]

    @pass_context
    def markdown2html(self, context, source):
        """Markdown rendered as nbconvert renders it, then cut down to plain markup: a learner's markdown
        cell, a text/markdown output, a comment."""
        return clean_fragment(super().markdown2html(context, source))

    def from_notebook_node(self, nb, resources=None, **kw):
        nb = copy.deepcopy(nb)
        resources = dict(resources or {})
        resources["exercise_titles"] = prepare(nb, show_hidden_tests=self.show_hidden_tests)
        html, resources = super().from_notebook_node(nb, resources, **kw)
        html, removed = neutralise_page(html)
        if removed:
            self.log.warning("Feedback: took out active content the cleaning had left: %s", ", ".join(removed[:10]))
        return html, resources
