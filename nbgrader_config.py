"""nbgrader settings for this repository: plain `nbgrader` commands work from its top folder."""

import os

c = get_config()  # noqa: F821  (nbgrader provides get_config when it loads this file)

c.CourseDirectory.course_id = "jax-beyond-jnp"

# The exchange: the folder `nbgrader release_assignment` puts a chapter in for learners to fetch,
# and where their submissions wait for `nbgrader collect`. For a class on one machine, nbgrader's
# docs ("Setting up the exchange") put it at /tmp/exchange, readable and writable by every account;
# nbgrader's own default, /usr/local/share/nbgrader/exchange, only root can create, so without this
# line formgrader says the exchange does not exist and offers no release or collect. For a class
# on a JupyterHub, name the hub's shared folder here and in the global config the learners read
# (README, "The exchange"). This file (read last) wins over a global config for the instructor.
c.Exchange.root = "/tmp/exchange"
# Formgrader looks for the folder when it starts, so it is made here if missing, open to every
# account as nbgrader's docs make it; if that fails, nbgrader says why when it needs the folder.
if not os.path.isdir(c.Exchange.root):
    try:
        os.makedirs(c.Exchange.root)
        os.chmod(c.Exchange.root, 0o777)
    except OSError:
        pass

# Instructor sources (full solutions, hidden tests, stored outputs) and the learner versions.
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
# Where a class's work goes; all three are git-ignored.
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "*.so", ".build"]

# What a learner sees in place of a solution. grader.setup_notebook() turns this exact stub
# into a one-line "not answered yet" message, so keep the two in step.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.ClearSolutions.enforce_metadata = True

# A chapter's slowest cell compiles C++ (a few seconds); five minutes per cell is generous. (nbgrader's
# autograde always goes on past a cell that raises: its Execute has no allow_errors setting to give.)
c.Execute.timeout = 300

# nbgrader's own autograde (formgrader's Autograde button) puts each test cell back as the instructor wrote
# it, hidden tests included. Its usual step for that warns about every test cell with hidden tests, edited
# or not (nbgrader records a cell's checksum before it clears the hidden tests it releases without); the
# course's step (grader/autograde/restore.py) warns only about a cell a learner changed. The list is
# nbgrader's own with that one step replaced.
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "grader.autograde.restore.RestoreTestCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Feedback, however it is made (`grader autograde`, `nbgrader generate_feedback`, formgrader's Generate
# Feedback), goes through the course's exporter (grader/autograde/feedback.py): each test cell is shown
# without its hidden region (each hidden check's verdict and hint still show), a learner's outputs and
# markdown are cut down to plain markup (no script, event handler, javascript: link or frame), and the
# summary names exercises. To show learners the hidden tests' code as well:
# c.FeedbackExporter.show_hidden_tests = True
c.GenerateFeedback.exporter_class = "grader.autograde.feedback.FeedbackExporter"

# `grader autograde` keeps the whole class in grades.csv (one row per student and chapter, failed
# submissions included, points from the gradebook). `nbgrader export` would write its own CSV under that
# same name by default and replace the course's file; here it writes nbgrader-export.csv instead. The
# setting lives in this file, not in a new name for the course's file, because nbgrader export finds its
# gradebook only in the course folder, where nbgrader reads this file, and grades.csv is the name the
# course's tools and instructors' scripts already know.
c.ExportPlugin.to = "nbgrader-export.csv"

# The limits each kernel runs under when `grader autograde` (and a learner's `grader check`) grades:
# set one here to change it for every run; a flag of `grader autograde` wins over this file. Units are
# those of each name (seconds, bytes, cores, a count); `grader autograde --help` lists them all, with
# what each limits and its default. For example:
# c.GradingLimits.cell_seconds = 120
# c.GradingLimits.memory_bytes = 4 << 30
