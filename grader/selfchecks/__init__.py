"""The visible self-checks of each chapter, one module per chapter (`ch00` ... `ch12`), kernel side.

A chapter's self-check cell reads

    with checks.exercise(1, "sum_of_squares"):
        selfcheck.exercise1(sum_of_squares)

where the setup cell imported `from grader.selfchecks import ch00 as selfcheck`. The function runs the
checks a learner can see, inside the exercise the cell opened; when a class is graded, the
instructor's hidden checks follow it in the same cell. Read one with `selfcheck.exercise1??` in a
notebook cell, or open its file here.

When grading, these modules are always the course's own copy (the installed package, which a
submission cannot replace), and every check only records what the learner's code returned: the
grader compares the records with the reference solution's outside the kernel
(`grader.autograde.judge`). The rules a check follows are in CONTRIBUTING.md, "How a self-check is
written".
"""


def primitive_names(jaxpr) -> list[str]:
    """The names of the primitives a jaxpr runs, in order, those inside the jaxprs it calls (a `jit`, a `scan`,
    the branches of a `cond`) included: what several chapters' checks read of a program."""
    names = []
    for eqn in jaxpr.eqns:
        names.append(eqn.primitive.name)
        for param in eqn.params.values():
            for inner in (param if isinstance(param, (tuple, list)) else (param,)):
                inner = getattr(inner, "jaxpr", inner)
                if hasattr(inner, "eqns"):
                    names += primitive_names(inner)
    return names
