"""`python -m grader` is the `grader` command."""

import sys

from grader.cli import main

if __name__ == "__main__":
    sys.exit(main())
