"""Wrong answers for 05_primitives (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

WRONG = {
    'ex1_answer': [
        W("m", 'Looks one level down: the sub-jaxprs of top-level equations, but not the sub-jaxprs inside them.',
          'def primitive_names(f, *args):\n'
          '    names = set()\n'
          '    for eqn in jax.make_jaxpr(f)(*args).eqns:\n'
          '        names.add(eqn.primitive.name)\n'
          '        for value in eqn.params.values():\n'
          '            for v in value if isinstance(value, tuple) else (value,):\n'
          '                if isinstance(v, jex.core.Jaxpr):\n'
          '                    names.update(e.primitive.name for e in v.eqns)\n'
          '    return sorted(names)\n'),
        W("m", 'Reads only the top-level equations: misses everything inside cond, scan, while and jit.',
          'def primitive_names(f, *args):\n'
          '    return sorted({eqn.primitive.name for eqn in jax.make_jaxpr(f)(*args).eqns})\n'),
        W("m", 'Recurses, but only into parameters that are a jaxpr themselves, not into tuples of them (the branches of a cond).',
          'def primitive_names(f, *args):\n'
          '    names = set()\n'
          '    def walk(jaxpr):\n'
          '        for eqn in jaxpr.eqns:\n'
          '            names.add(eqn.primitive.name)\n'
          '            for value in eqn.params.values():\n'
          '                if isinstance(value, jex.core.Jaxpr):\n'
          '                    walk(value)\n'
          '    walk(jax.make_jaxpr(f)(*args))\n'
          '    return sorted(names)\n'),
    ],
    'ex2_answer': [
        W("m", 'Counts only the top level, so a primitive inside a loop body counts zero.',
          'def count_primitive(f, name, *args):\n'
          '    return sum(eqn.primitive.name == name for eqn in jax.make_jaxpr(f)(*args).eqns)\n'),
        W("m", 'Counts one level down only: a cond inside a scan body is never opened.',
          'def count_primitive(f, name, *args):\n'
          '    total = 0\n'
          '    for eqn in jax.make_jaxpr(f)(*args).eqns:\n'
          '        total += eqn.primitive.name == name\n'
          '        for value in eqn.params.values():\n'
          '            for v in value if isinstance(value, tuple) else (value,):\n'
          '                if isinstance(v, jex.core.Jaxpr):\n'
          '                    total += sum(e.primitive.name == name for e in v.eqns)\n'
          '    return total\n'),
    ],
    'ex3_answer': [
        W("m", 'Only matches `= stablehlo.op`, missing "stablehlo.case", stablehlo.return and `applies stablehlo.add`.',
          'def stablehlo_ops(f, *args):\n'
          '    text = jax.jit(f).lower(*args).as_text()\n'
          "    return sorted(set(re.findall(r'= stablehlo\\.(\\w+)', text)))\n"),
        W("m", 'Finds every operation but keeps the `stablehlo.` prefix.',
          'def stablehlo_ops(f, *args):\n'
          '    text = jax.jit(f).lower(*args).as_text()\n'
          "    return sorted(set(re.findall(r'stablehlo\\.\\w+', text)))\n"),
    ],
    'ex4_answer': [
        W("m", "Section 7's pitfall: tracing under jit succeeds, and lowering is what fails; this never lowers.",
          'def what_works(f, x):\n'
          "    attempts = {'jit': lambda: jax.jit(f).trace(x),\n"
          "                'jvp': lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n"
          "                'grad': lambda: jax.grad(lambda v: f(v).sum())(x),\n"
          "                'vmap': lambda: jax.vmap(f)(jnp.stack([x, x]))}\n"
          '    works = {}\n'
          '    for name, attempt in attempts.items():\n'
          '        try:\n'
          '            attempt()\n'
          '            works[name] = True\n'
          '        except Exception:\n'
          '            works[name] = False\n'
          '    return works\n'),
        W("m", "Section 7's other pitfall: infers grad from jvp, as if grad needed nothing but a JVP rule.",
          'def what_works(f, x):\n'
          "    attempts = {'jit': lambda: jax.block_until_ready(jax.jit(f)(x)),\n"
          "                'jvp': lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n"
          "                'vmap': lambda: jax.vmap(f)(jnp.stack([x, x]))}\n"
          '    works = {}\n'
          '    for name, attempt in attempts.items():\n'
          '        try:\n'
          '            attempt()\n'
          '            works[name] = True\n'
          '        except Exception:\n'
          '            works[name] = False\n'
          "    works['grad'] = works['jvp']\n"
          '    return works\n'),
    ],
    'quiz_answer': [
        W("m", 'TODO',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "b"\n'
          'q4 = "b"\n'),
        W("m", 'TODO',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'
          'q4 = "b"\n'),
    ],
}
