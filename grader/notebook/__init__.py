"""The kernel side of the course package: what a learner's notebook imports and runs.

Everything here runs inside a learner's kernel, so it imports quickly (standard library, NumPy
and JAX only) and is untrusted once a learner's code has run: the grader never relies on it for
a verdict, only on the plain-data records it sends out (`record`).

- `checks`: the self-checks of graded cells (and, when grading, the recording of what they got);
- `record`: plain-data records of what a learner's code returned;
- `watch`: which functions run while a check's block runs (`sys.monitoring`);
- `build`: the C++ build helper (`grader.build`);
- `setup`: `grader.setup_notebook()`, run by each chapter's setup cell;
- `addresses`: where an array's data lives, for aliasing demonstrations.
"""
