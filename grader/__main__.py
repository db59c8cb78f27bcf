"""`python -m grader` is the `grader` command."""

import sys

from grader.cli import main

sys.exit(main())
