"""nbgrader settings for this repository: plain `nbgrader` commands work from its top folder."""

c = get_config()  # noqa: F821  (nbgrader provides get_config when it loads this file)

c.CourseDirectory.course_id = "jax-beyond-jnp"
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

# A chapter's slowest cell compiles C++ (a few seconds); five minutes per cell is generous.
c.Execute.timeout = 300
c.Execute.allow_errors = True
