"""Wrong answers for 05_primitives (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'bcfgm', 'ex2_answer': 'bcfgm', 'ex3_answer': 'bcfgm', 'ex4_answer': 'bcfgm', 'quiz_answer': 'm'}

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
        W('g', 'recurses only into the parameters the visible cond and scan use (branches, jaxpr): misses while (cond_jaxpr, body_jaxpr) and custom_jvp_call (call_jaxpr)',
          r"""def primitive_names(f, *args):
    names = set()

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            names.add(eqn.primitive.name)
            for key in ("branches", "jaxpr"):
                value = eqn.params.get(key, ())
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, jex.core.Jaxpr):
                        walk(v)

    walk(jax.make_jaxpr(f)(*args))
    return sorted(names)
"""),
        W('m', "walks one level only (jex.core.subjaxprs, the section 4 pitfall): misses sin inside nested's cond->scan, max inside relu's custom_jvp->jit",
          r'''def primitive_names(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args)
    names = {eqn.primitive.name for eqn in jaxpr.eqns}
    for sub in jex.core.subjaxprs(jaxpr):
        names |= {eqn.primitive.name for eqn in sub.eqns}
    return sorted(names)
'''),
        W('g', "looks only in the parameters named in section 4 (branches, jaxpr, body_jaxpr, cond_jaxpr): misses custom_jvp_call/custom_vjp_call's call_jaxpr (relu -> no max)",
          r'''def primitive_names(f, *args):
    names = set()

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            names.add(eqn.primitive.name)
            for key in ("branches", "jaxpr", "body_jaxpr", "cond_jaxpr"):
                value = eqn.params.get(key)
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, jex.core.Jaxpr):
                        walk(v)

    walk(jax.make_jaxpr(f)(*args))
    return sorted(names)
'''),
        W('g', 'recurses only into cond/scan/while/jit equations: misses custom_jvp_call, custom_vjp_call and remat2 bodies',
          r'''def primitive_names(f, *args):
    names = set()

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            names.add(eqn.primitive.name)
            if eqn.primitive.name in ("cond", "scan", "while", "jit"):
                for value in eqn.params.values():
                    for v in value if isinstance(value, tuple) else (value,):
                        if isinstance(v, jex.core.Jaxpr):
                            walk(v)

    walk(jax.make_jaxpr(f)(*args))
    return sorted(names)
'''),
        W('f', 'accumulates names in a module-level set: the second call returns the names of every earlier call too',
          r'''_names = set()

def _walk(jaxpr):
    for eqn in jaxpr.eqns:
        _names.add(eqn.primitive.name)
        for value in eqn.params.values():
            for v in value if isinstance(value, tuple) else (value,):
                if isinstance(v, jex.core.Jaxpr):
                    _walk(v)

def primitive_names(f, *args):
    _walk(jax.make_jaxpr(f)(*args))
    return sorted(_names)
'''),
        W('c', "recurses only into parameters that are a Jaxpr, not tuples of them: right for scan/while/jit, misses cond's branches (sin/cos of g)",
          r'''def primitive_names(f, *args):
    names = set()

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            names.add(eqn.primitive.name)
            for value in eqn.params.values():
                if isinstance(value, jex.core.Jaxpr):
                    walk(value)

    walk(jax.make_jaxpr(f)(*args))
    return sorted(names)
'''),
        W('m', 'distinct names in order of appearance, not sorted',
          r'''def primitive_names(f, *args):
    names = []

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            if eqn.primitive.name not in names:
                names.append(eqn.primitive.name)
            for value in eqn.params.values():
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, jex.core.Jaxpr):
                        walk(v)

    walk(jax.make_jaxpr(f)(*args))
    return names
'''),
        W('c', "parses the printed jaxpr for '= name': misses equations with no outputs (debug_print)",
          r'''def primitive_names(f, *args):
    text = jax.make_jaxpr(f)(*args).pretty_print(use_color=False)
    # every equation reads "outputs = name[params] inputs", at any depth of the printout
    return sorted(set(re.findall(r"= ([A-Za-z_][\w-]*)", text)))
'''),
        W('b', 'converts every argument to a float32 array before tracing: integer arguments change the trace (add_up(1.0, 3) raises)',
          r'''def primitive_names(f, *args):
    names = set()

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            names.add(eqn.primitive.name)
            for value in eqn.params.values():
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, jex.core.Jaxpr):
                        walk(v)

    arrays = [jnp.asarray(a, dtype=jnp.float32) for a in args]   # trace with plain float32 arrays
    walk(jax.make_jaxpr(f)(*arrays))
    return sorted(names)
'''),
        W('m', "recognises sub-jaxprs by type name 'ClosedJaxpr' (gone in 0.12): never recurses, only top-level names",
          r'''def primitive_names(f, *args):
    names = set()

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            names.add(eqn.primitive.name)
            for value in eqn.params.values():
                for v in value if isinstance(value, tuple) else (value,):
                    if type(v).__name__ == "ClosedJaxpr":
                        walk(v.jaxpr)

    walk(jax.make_jaxpr(f)(*args))
    return sorted(names)
'''),
        W('c', "walks one level only (jex.core.subjaxprs of the top jaxpr): right for g, misses sin in a scan inside a cond and max inside jax.nn.relu's custom_jvp_call/jit",
          'def primitive_names(f, *args):\n'
          '    jaxpr = jax.make_jaxpr(f)(*args)\n'
          '    names = {eqn.primitive.name for eqn in jaxpr.eqns}\n'
          "    for sub in jex.core.subjaxprs(jaxpr):          # the jaxprs held by the equations' parameters\n"
          '        names |= {eqn.primitive.name for eqn in sub.eqns}\n'
          '    return sorted(names)\n'),
        W('c', "reads names off the printed jaxpr with a \\w regex: renamed primitives with a hyphen come out cut ('scatter' for 'scatter-add')",
          'def primitive_names(f, *args):\n'
          '    # every equation, sub-jaxprs included, is printed as "outputs = name[params] inputs"\n'
          '    text = jax.make_jaxpr(f)(*args).pretty_print(use_color=False)\n'
          '    return sorted(set(re.findall(r"= ([A-Za-z_][A-Za-z_0-9]*)", text)))\n'),
        W('g', "recurses only into the parameter names of section 4 (branches, jaxpr, body_jaxpr, cond_jaxpr): misses call_jaxpr (custom_jvp_call), update_jaxpr (scatter), custom_linear_solve's jaxprs",
          'JAXPR_PARAMS = ("branches", "jaxpr", "body_jaxpr", "cond_jaxpr")   # cond, scan / jit, while\n'
          '\n'
          'def primitive_names(f, *args):\n'
          '    names = set()\n'
          '\n'
          '    def walk(jaxpr):\n'
          '        for eqn in jaxpr.eqns:\n'
          '            names.add(eqn.primitive.name)\n'
          '            for key in JAXPR_PARAMS:\n'
          '                if key in eqn.params:\n'
          '                    value = eqn.params[key]\n'
          '                    for sub in value if isinstance(value, tuple) else (value,):\n'
          '                        walk(sub)\n'
          '\n'
          '    walk(jax.make_jaxpr(f)(*args))\n'
          '    return sorted(names)\n'),
        W('c', 'recurses into a tuple only when every entry is a Jaxpr: misses the solve jaxpr of custom_linear_solve, whose tuple also holds None',
          'def primitive_names(f, *args):\n'
          '    names = set()\n'
          '\n'
          '    def walk(jaxpr):\n'
          '        for eqn in jaxpr.eqns:\n'
          '            names.add(eqn.primitive.name)\n'
          '            for value in eqn.params.values():\n'
          '                if isinstance(value, jex.core.Jaxpr):\n'
          '                    walk(value)\n'
          '                elif isinstance(value, tuple) and value and all(isinstance(v, jex.core.Jaxpr) for v in value):\n'
          "                    for v in value:                 # cond's branches\n"
          '                        walk(v)\n'
          '\n'
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
        W('m', 'counts the top level and one level of sub-jaxprs only (subjaxprs): nested cond->scan sin counted 0',
          r'''def count_primitive(f, name, *args):
    jaxpr = jax.make_jaxpr(f)(*args)
    total = sum(eqn.primitive.name == name for eqn in jaxpr.eqns)
    for sub in jex.core.subjaxprs(jaxpr):
        total += sum(eqn.primitive.name == name for eqn in sub.eqns)
    return int(total)
'''),
        W('g', "looks only in branches/jaxpr/body_jaxpr/cond_jaxpr: misses custom_jvp_call/custom_vjp_call bodies (relu's max, custom_vjp sin)",
          r'''def count_primitive(f, name, *args):
    def count(jaxpr):
        total = 0
        for eqn in jaxpr.eqns:
            total += eqn.primitive.name == name
            for key in ("branches", "jaxpr", "body_jaxpr", "cond_jaxpr"):
                value = eqn.params.get(key)
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, jex.core.Jaxpr):
                        total += count(v)
        return total

    return count(jax.make_jaxpr(f)(*args))
'''),
        W('f', 'keeps the count in a module-level global: every call adds to the previous total',
          r'''_total = 0

def _count(jaxpr, name):
    global _total
    for eqn in jaxpr.eqns:
        _total += eqn.primitive.name == name
        for value in eqn.params.values():
            for v in value if isinstance(value, tuple) else (value,):
                if isinstance(v, jex.core.Jaxpr):
                    _count(v, name)

def count_primitive(f, name, *args):
    _count(jax.make_jaxpr(f)(*args), name)
    return int(_total)
'''),
        W('c', 'walks each distinct jaxpr object once: two identical jit calls or a cond with the same branch twice count sin once, not twice',
          r'''def count_primitive(f, name, *args):
    seen = set()

    def count(jaxpr):
        if id(jaxpr) in seen:          # do not walk the same jaxpr twice
            return 0
        seen.add(id(jaxpr))
        total = 0
        for eqn in jaxpr.eqns:
            total += eqn.primitive.name == name
            for value in eqn.params.values():
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, jex.core.Jaxpr):
                        total += count(v)
        return total

    return count(jax.make_jaxpr(f)(*args))
'''),
        W('c', "counts the name as a word in the printed jaxpr: params such as jit's name=sin are counted, shared branches printed once",
          r'''def count_primitive(f, name, *args):
    text = jax.make_jaxpr(f)(*args).pretty_print(use_color=False)
    return len(re.findall(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text))
'''),
        W('m', 'returns np.sum(...), a numpy int64, not a Python int',
          r'''def count_primitive(f, name, *args):
    def names(jaxpr):
        for eqn in jaxpr.eqns:
            yield eqn.primitive.name
            for value in eqn.params.values():
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, jex.core.Jaxpr):
                        yield from names(v)

    return np.sum([n == name for n in names(jax.make_jaxpr(f)(*args))])
'''),
        W('b', "recursive helper's name defaults to 'sin' and the recursive call drops it: sub-jaxprs always count sin",
          r'''def _count(jaxpr, name="sin"):
    total = 0
    for eqn in jaxpr.eqns:
        total += eqn.primitive.name == name
        for value in eqn.params.values():
            for v in value if isinstance(value, tuple) else (value,):
                if isinstance(v, jex.core.Jaxpr):
                    total += _count(v)
    return total

def count_primitive(f, name, *args):
    return _count(jax.make_jaxpr(f)(*args), name)
'''),
        W('c', "substring match (name in primitive name): 'add' also counts scatter-add and add_any",
          r'''def count_primitive(f, name, *args):
    def count(jaxpr):
        total = 0
        for eqn in jaxpr.eqns:
            total += name in eqn.primitive.name
            for value in eqn.params.values():
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, jex.core.Jaxpr):
                        total += count(v)
        return total

    return count(jax.make_jaxpr(f)(*args))
'''),
        W('c', 'counts matches in the printed jaxpr: a jitted function called twice is printed once (let-bound), so its equations count once',
          'def count_primitive(f, name, *args):\n'
          '    # the printed jaxpr shows every equation, sub-jaxprs included, as "outputs = name[params] inputs"\n'
          '    text = jax.make_jaxpr(f)(*args).pretty_print(use_color=False)\n'
          '    return len(re.findall(r"= " + re.escape(name) + r"(?![A-Za-z_0-9-])", text))\n'),
        W('b', "matches `name` as a substring of the primitive name: count_primitive(f, 'max') also counts reduce_max",
          'def count_primitive(f, name, *args):\n'
          '    def count(jaxpr):\n'
          '        total = 0\n'
          '        for eqn in jaxpr.eqns:\n'
          '            total += name in eqn.primitive.name         # the equation uses primitive `name`\n'
          '            for value in eqn.params.values():\n'
          '                for v in value if isinstance(value, tuple) else (value,):\n'
          '                    if isinstance(v, jex.core.Jaxpr):\n'
          '                        total += count(v)\n'
          '        return total\n'
          '\n'
          '    return int(count(jax.make_jaxpr(f)(*args)))\n'),
        W('m', "reads 'how often it runs' as runtime: counts only the cond branch with the most uses, not both",
          'def count_primitive(f, name, *args):\n'
          '    def count(jaxpr):\n'
          '        total = 0\n'
          '        for eqn in jaxpr.eqns:\n'
          '            total += eqn.primitive.name == name\n'
          '            if eqn.primitive.name == "cond":\n'
          '                # only one branch runs: count the branch that uses it most\n'
          '                total += max(count(branch) for branch in eqn.params["branches"])\n'
          '                continue\n'
          '            for value in eqn.params.values():\n'
          '                for v in value if isinstance(value, tuple) else (value,):\n'
          '                    if isinstance(v, jex.core.Jaxpr):\n'
          '                        total += count(v)\n'
          '        return total\n'
          '\n'
          '    return int(count(jax.make_jaxpr(f)(*args)))\n'),
        W('g', "recurses only into the parameter names of section 4: misses equations under custom_jvp_call (jax.nn.relu's max)",
          'JAXPR_PARAMS = ("branches", "jaxpr", "body_jaxpr", "cond_jaxpr")   # cond, scan / jit, while\n'
          '\n'
          'def count_primitive(f, name, *args):\n'
          '    def count(jaxpr):\n'
          '        total = 0\n'
          '        for eqn in jaxpr.eqns:\n'
          '            total += eqn.primitive.name == name\n'
          '            for key in JAXPR_PARAMS:\n'
          '                value = eqn.params.get(key)\n'
          '                for v in value if isinstance(value, tuple) else (value,):\n'
          '                    if v is not None:\n'
          '                        total += count(v)\n'
          '        return total\n'
          '\n'
          '    return int(count(jax.make_jaxpr(f)(*args)))\n'),
        W('m', "multiplies a scan body's count by the loop length, which the text says counts once",
          'def count_primitive(f, name, *args):\n'
          '    def count(jaxpr):\n'
          '        total = 0\n'
          '        for eqn in jaxpr.eqns:\n'
          '            total += eqn.primitive.name == name\n'
          '            times = eqn.params.get("length", 1) if eqn.primitive.name == "scan" else 1   # the body runs `length` times\n'
          '            for value in eqn.params.values():\n'
          '                for v in value if isinstance(value, tuple) else (value,):\n'
          '                    if isinstance(v, jex.core.Jaxpr):\n'
          '                        total += times * count(v)\n'
          '        return total\n'
          '\n'
          '    return int(count(jax.make_jaxpr(f)(*args)))\n'),
        W('c', 'recurses into a tuple only when every entry is a Jaxpr: misses the solve of a custom_linear_solve, whose tuple also holds None',
          'def count_primitive(f, name, *args):\n'
          '    def count(jaxpr):\n'
          '        total = 0\n'
          '        for eqn in jaxpr.eqns:\n'
          '            total += eqn.primitive.name == name\n'
          '            for value in eqn.params.values():\n'
          '                if isinstance(value, jex.core.Jaxpr):\n'
          '                    total += count(value)\n'
          '                elif isinstance(value, tuple) and value and all(isinstance(v, jex.core.Jaxpr) for v in value):\n'
          '                    total += sum(count(v) for v in value)   # the branches of a cond\n'
          '        return total\n'
          '\n'
          '    return count(jax.make_jaxpr(f)(*args))\n'),
    ],
    'ex3_answer': [
        W("m", 'Finds every operation but keeps the `stablehlo.` prefix.',
          'def stablehlo_ops(f, *args):\n'
          '    text = jax.jit(f).lower(*args).as_text()\n'
          "    return sorted(set(re.findall(r'stablehlo\\.\\w+', text)))\n"),
        W('c', "regex [a-z_]+ without digits: atan2 becomes 'atan'",
          r'''def stablehlo_ops(f, *args):
    text = jax.jit(f).lower(*args).as_text()
    return sorted(set(re.findall(r"stablehlo\.([a-z_]+)", text)))
'''),
        W('m', 'only \'= stablehlo.op\' (the section 5 pitfall): misses return, \'applies stablehlo.add\' and the quoted "stablehlo.case"',
          r'''def stablehlo_ops(f, *args):
    text = jax.jit(f).lower(*args).as_text()
    return sorted(set(re.findall(r"= stablehlo\.(\w+)", text)))
'''),
        W('c', 'requires a space after the op name: misses reduce(, while( and "stablehlo.case"(',
          r'''def stablehlo_ops(f, *args):
    text = jax.jit(f).lower(*args).as_text()
    return sorted(set(re.findall(r"stablehlo\.(\w+) ", text)))
'''),
        W('m', 'reads the compiled HLO (.compile().as_text()) instead of the lowered StableHLO: fusion, parameter, broadcast...',
          r'''def stablehlo_ops(f, *args):
    text = jax.jit(f).lower(*args).compile().as_text()
    return sorted(set(re.findall(r"stablehlo\.(\w+)", text)) | set(re.findall(r"= \w+\[[^\]]*\]\{?[^ ]* (\w+)\(", text)))
'''),
        W('g', "maps jaxpr primitive names through a table built from the text's examples: wrong for anything not in it (jit, custom_jvp_call, log1p...)",
          r'''_TO_STABLEHLO = {"cos": "cosine", "sin": "sine", "mul": "multiply", "add": "add", "dot_general": "dot_general",
                 "reduce_sum": "reduce", "cond": "case", "scan": "while", "while": "while", "tanh": "tanh",
                 "exp": "exponential", "neg": "negate", "gt": "compare", "lt": "compare",
                 "convert_element_type": "convert", "sub": "subtract", "div": "divide"}

def stablehlo_ops(f, *args):
    text = jax.jit(f).lower(*args).as_text()
    jaxpr = jax.make_jaxpr(f)(*args)
    ops = {_TO_STABLEHLO.get(eqn.primitive.name, eqn.primitive.name) for eqn in jaxpr.eqns}
    ops |= {op for op in ("constant", "broadcast_in_dim", "return") if f"stablehlo.{op}" in text}
    return sorted(ops)
'''),
        W('b', 'lowers for float32 ShapeDtypeStructs whatever the argument dtypes: integer arguments lose their convert ops (or fail)',
          r'''def stablehlo_ops(f, *args):
    # lower for abstract arguments: nothing is computed
    specs = [jax.ShapeDtypeStruct(jnp.shape(a), jnp.float32) for a in args]
    text = jax.jit(f).lower(*specs).as_text()
    return sorted(set(re.findall(r"stablehlo\.([A-Za-z_0-9]+)", text)))
'''),
        W('c', "one match per line (re.search): misses the 'applies stablehlo.add' of a reduce line (jnp.sum gives no 'add')",
          r'''def stablehlo_ops(f, *args):
    text = jax.jit(f).lower(*args).as_text()
    ops = set()
    for line in text.splitlines():
        match = re.search(r"stablehlo\.(\w+)", line)      # the operation of this line
        if match:
            ops.add(match.group(1))
    return sorted(ops)
'''),
        W('c', "regex requires '= ' or a space before 'stablehlo.': misses ops in the quoted generic form ('case', 'scatter')",
          'def stablehlo_ops(f, *args):\n'
          '    text = jax.jit(f).lower(*args).as_text()\n'
          '    # an op follows "= " ("%0 = stablehlo.cosine"), or a space ("applies stablehlo.add", "  stablehlo.return")\n'
          '    return sorted(set(re.findall(r"[= ]stablehlo\\.([A-Za-z_0-9]+)", text)))\n'),
        W('c', 'reads only the text before the first private function: misses ops inside nested-jit helpers (tanh of jax.jit(jnp.tanh), dynamic_slice of scan)',
          'def stablehlo_ops(f, *args):\n'
          '    text = jax.jit(f).lower(*args).as_text()\n'
          '    main = text.split("func.func private")[0]       # the program\'s own function, not the helpers\n'
          '    return sorted(set(re.findall(r"stablehlo\\.([A-Za-z_0-9]+)", main)))\n'),
        W('g', 'special-cases exactly the exceptions the text names ("stablehlo.case", stablehlo.return, applies): misses other generic-form ops such as scatter',
          'def stablehlo_ops(f, *args):\n'
          '    text = jax.jit(f).lower(*args).as_text()\n'
          '    ops = set(re.findall(r"= stablehlo\\.([A-Za-z_0-9]+)", text))        # %0 = stablehlo.cosine ...\n'
          '    ops |= set(re.findall(r"applies stablehlo\\.([A-Za-z_0-9]+)", text))  # reduce ... applies stablehlo.add\n'
          '    if \'"stablehlo.case"\' in text:                                      # the generic form\n'
          '        ops.add("case")\n'
          '    if "stablehlo.return" in text:\n'
          '        ops.add("return")\n'
          '    return sorted(ops)\n'),
        W('m', "drops 'return' as a mere terminator, though it is a stablehlo. op in the text",
          'def stablehlo_ops(f, *args):\n'
          '    text = jax.jit(f).lower(*args).as_text()\n'
          '    ops = set(re.findall(r"stablehlo\\.([A-Za-z_0-9]+)", text))\n'
          '    ops.discard("return")            # the terminator of a region, not an operation that computes anything\n'
          '    return sorted(ops)\n'),
    ],
    'ex4_answer': [
        W('m', "'jit' only traces (jax.jit(f).trace(x)): cube and double get jit=True although lowering fails",
          r'''def what_works(f, x):
    attempts = {
        "jit": lambda: jax.jit(f).trace(x),
        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),
        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),
        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),
    }
    works = {}
    for name, attempt in attempts.items():
        try:
            attempt()
            works[name] = True
        except Exception:
            works[name] = False
    return works
'''),
        W('m', 'grad inferred from jvp, not tried: double gets grad=True (no transpose rule), doubling (while loop) too',
          r'''def what_works(f, x):
    attempts = {
        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),
        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),
        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),
    }
    works = {}
    for name, attempt in attempts.items():
        try:
            attempt()
            works[name] = True
        except Exception:
            works[name] = False
    works["grad"] = works["jvp"]          # grad is built on the JVP rule
    return {key: works[key] for key in ("jit", "jvp", "grad", "vmap")}
'''),
        W('c', 'catches only NotImplementedError: raises on while-loop grad (ValueError), failing callbacks, int input jvp (TypeError)',
          r'''def what_works(f, x):
    attempts = {
        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),
        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),
        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),
        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),
    }
    works = {}
    for name, attempt in attempts.items():
        try:
            attempt()
            works[name] = True
        except NotImplementedError:          # a missing rule
            works[name] = False
    return works
'''),
        W('c', 'grad of f itself, not of f(v).sum(): right for 0-d x, grad=False for every vector-valued f',
          r'''def what_works(f, x):
    attempts = {
        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),
        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),
        "grad": lambda: jax.grad(f)(x),
        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),
    }
    works = {}
    for name, attempt in attempts.items():
        try:
            attempt()
            works[name] = True
        except Exception:
            works[name] = False
    return works
'''),
        W('g', "jvp tangent jnp.ones(3), the size of the chapter's x3: jvp=False for any x not of 3 elements",
          r'''def what_works(f, x):
    attempts = {
        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),
        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones(3),)),
        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),
        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),
    }
    works = {}
    for name, attempt in attempts.items():
        try:
            attempt()
            works[name] = True
        except Exception:
            works[name] = False
    return works
'''),
        W('f', 'the result dict is a mutable default argument: every call returns (and overwrites) the same dict',
          r'''def what_works(f, x, works={}):
    attempts = {
        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),
        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),
        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),
        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),
    }
    for name, attempt in attempts.items():
        try:
            attempt()
            works[name] = True
        except Exception:
            works[name] = False
    return works
'''),
        W('b', 'vmaps over x itself instead of jnp.stack([x, x]): vmap=False for 0-d x and for functions of a vector (v @ v)',
          r'''def what_works(f, x):
    attempts = {
        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),
        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),
        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),
        "vmap": lambda: jax.vmap(f)(x),
    }
    works = {}
    for name, attempt in attempts.items():
        try:
            attempt()
            works[name] = True
        except Exception:
            works[name] = False
    return works
'''),
        W('f', 'fills and returns one module-level dict: every call returns the same object, so earlier results change under the caller',
          '_works = {"jit": False, "jvp": False, "grad": False, "vmap": False}\n'
          '\n'
          'def what_works(f, x):\n'
          '    attempts = {\n'
          '        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),\n'
          '        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n'
          '        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n'
          '        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n'
          '    }\n'
          '    for name, attempt in attempts.items():\n'
          '        try:\n'
          '            attempt()\n'
          '            _works[name] = True\n'
          '        except Exception:\n'
          '            _works[name] = False\n'
          '    return _works\n'),
        W('c', "vmap tried as jax.vmap(f)(x), over x's own leading axis: False for a 0-d x or for f = lambda v: v[0] * 2 where stacking works",
          'def what_works(f, x):\n'
          '    attempts = {\n'
          '        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),\n'
          '        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n'
          '        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n'
          '        "vmap": lambda: jax.vmap(f)(x),            # map f over the elements of x\n'
          '    }\n'
          '    works = {}\n'
          '    for name, attempt in attempts.items():\n'
          '        try:\n'
          '            attempt()\n'
          '            works[name] = True\n'
          '        except Exception:\n'
          '            works[name] = False\n'
          '    return works\n'),
        W('b', 'jvp tangent jnp.ones(x.shape) is always float32: jvp reported False for a float16 x',
          'def what_works(f, x):\n'
          '    attempts = {\n'
          '        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),\n'
          '        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones(jnp.shape(x)),)),\n'
          '        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n'
          '        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n'
          '    }\n'
          '    works = {}\n'
          '    for name, attempt in attempts.items():\n'
          '        try:\n'
          '            attempt()\n'
          '            works[name] = True\n'
          '        except Exception:\n'
          '            works[name] = False\n'
          '    return works\n'),
        W('m', "'jit' checked by lowering only: a function whose compiled program fails when it runs (a raising pure_callback) is reported True",
          'def what_works(f, x):\n'
          '    attempts = {\n'
          '        "jit": lambda: jax.jit(f).lower(x),         # jit\'s error comes from lowering\n'
          '        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n'
          '        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n'
          '        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n'
          '    }\n'
          '    works = {}\n'
          '    for name, attempt in attempts.items():\n'
          '        try:\n'
          '            attempt()\n'
          '            works[name] = True\n'
          '        except Exception:\n'
          '            works[name] = False\n'
          '    return works\n'),
        W('m', 'catches only NotImplementedError (the missing-rule errors): grad of a while_loop (ValueError) or a failing callback propagates instead of giving False',
          'def what_works(f, x):\n'
          '    attempts = {\n'
          '        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),\n'
          '        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n'
          '        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n'
          '        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n'
          '    }\n'
          '    works = {}\n'
          '    for name, attempt in attempts.items():\n'
          '        try:\n'
          '            attempt()\n'
          '            works[name] = True\n'
          '        except NotImplementedError:               # a missing rule\n'
          '            works[name] = False\n'
          '    return works\n'),
        W('m', "'jit' lowered and compiled but never run (jax.jit(f).lower(x).compile()): a program that fails only when it runs is reported True",
          'def what_works(f, x):\n'
          '    attempts = {\n'
          '        "jit": lambda: jax.jit(f).lower(x).compile(),   # compiled, so every rule was found\n'
          '        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n'
          '        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n'
          '        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n'
          '    }\n'
          '    works = {}\n'
          '    for name, attempt in attempts.items():\n'
          '        try:\n'
          '            attempt()\n'
          '            works[name] = True\n'
          '        except Exception:\n'
          '            works[name] = False\n'
          '    return works\n'),
        W('b', 'the batch is built with jnp.array([x, x], dtype=jnp.float32): vmap reported False for a function that needs its float16 x',
          'def what_works(f, x):\n'
          '    attempts = {\n'
          '        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),\n'
          '        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n'
          '        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n'
          '        "vmap": lambda: jax.vmap(f)(jnp.array([x, x], dtype=jnp.float32)),\n'
          '    }\n'
          '    works = {}\n'
          '    for name, attempt in attempts.items():\n'
          '        try:\n'
          '            attempt()\n'
          '            works[name] = True\n'
          '        except Exception:\n'
          '            works[name] = False\n'
          '    return works\n'),
    ],
    'quiz_answer': [
        W('m', 'q1=a: thinks the jaxpr shows the variable name add_p',
          r'''q1 = "a"
q2 = "a"
q3 = "b"
q4 = "b"
'''),
        W('m', 'q2=b: thinks cond lowers to stablehlo.if with the true branch first',
          r'''q1 = "b"
q2 = "b"
q3 = "b"
q4 = "b"
'''),
        W('m', 'q3=a: forgets that jit also needs a lowering rule (impl + abstract eval are not enough)',
          r'''q1 = "b"
q2 = "a"
q3 = "a"
q4 = "b"
'''),
        W('m', 'q4=a: uses the pre-0.12 primitive_batchers table, which is a write-only proxy now',
          r'''q1 = "b"
q2 = "a"
q3 = "b"
q4 = "a"
'''),
        W('m', 'q2=c: thinks cond lowers to a select of both branches',
          r'''q1 = "b"
q2 = "c"
q3 = "b"
q4 = "b"
'''),
    ],
}

# Round 3: written from the chapter's text alone (its test cells removed), before its checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('g', "recurses only into the parameter names seen in section 4 plus custom_linear_solve's `jaxprs`; any other jaxpr-holding parameter (e.g. linear_call's callee/transpose) is skipped",
      'JAXPR_PARAMS = ("branches", "jaxpr", "body_jaxpr", "cond_jaxpr", "call_jaxpr", "jaxprs")\n\ndef primitive_names(f, *args):\n    names = set()\n\n    def walk(jaxpr):\n        for eqn in jaxpr.eqns:\n            names.add(eqn.primitive.name)\n            for key in JAXPR_PARAMS:\n                value = eqn.params.get(key)\n                for sub in (value if isinstance(value, tuple) else (value,)):\n                    if isinstance(sub, jex.core.Jaxpr):\n                        walk(sub)\n\n    walk(jax.make_jaxpr(f)(*args))\n    return sorted(names)\n'),
    W('b', "caches the result per function (tracing is 'expensive'): the same f called again with arguments of another dtype/shape gets the first answer",
      '_names_cache = {}\n\ndef primitive_names(f, *args):\n    if f in _names_cache:          # tracing again would give the same jaxpr\n        return list(_names_cache[f])\n    names = set()\n\n    def walk(jaxpr):\n        for eqn in jaxpr.eqns:\n            names.add(eqn.primitive.name)\n            for value in eqn.params.values():\n                for sub in (value if isinstance(value, tuple) else (value,)):\n                    if isinstance(sub, jex.core.Jaxpr):\n                        walk(sub)\n\n    walk(jax.make_jaxpr(f)(*args))\n    _names_cache[f] = sorted(names)\n    return sorted(names)\n'),
    W('c', 'recursion capped at 3 levels below the top (a guard against runaway recursion): primitives nested 4+ levels deep are missed',
      'MAX_DEPTH = 3   # cond -> scan -> ... is already deep; stop runaway recursion\n\ndef primitive_names(f, *args):\n    names = set()\n\n    def walk(jaxpr, depth):\n        for eqn in jaxpr.eqns:\n            names.add(eqn.primitive.name)\n            if depth >= MAX_DEPTH:\n                continue\n            for value in eqn.params.values():\n                for sub in (value if isinstance(value, tuple) else (value,)):\n                    if isinstance(sub, jex.core.Jaxpr):\n                        walk(sub, depth + 1)\n\n    walk(jax.make_jaxpr(f)(*args), 0)\n    return sorted(names)\n'),
]
WRONG['ex2_answer'] += [
    W('m', 'looks the primitive object up as jex.core.primitives.<name>_p and compares objects: names whose variable differs (add_any, custom_linear_solve) always count 0',
      'def count_primitive(f, name, *args):\n    # compare the primitive objects, not strings (section 3); "scatter-add" lives in scatter_add_p\n    target = getattr(jex.core.primitives, name.replace("-", "_") + "_p", None)\n\n    def count(jaxpr):\n        n = 0\n        for eqn in jaxpr.eqns:\n            n += eqn.primitive is target\n            for value in eqn.params.values():\n                for sub in (value if isinstance(value, tuple) else (value,)):\n                    if isinstance(sub, jex.core.Jaxpr):\n                        n += count(sub)\n        return n\n\n    return int(count(jax.make_jaxpr(f)(*args)))\n'),
    W('g', "recurses only into the parameter names seen in the chapter (branches, jaxpr, body_jaxpr, cond_jaxpr, call_jaxpr, jaxprs): linear_call's `callee` is skipped",
      'JAXPR_PARAMS = ("branches", "jaxpr", "body_jaxpr", "cond_jaxpr", "call_jaxpr", "jaxprs")\n\ndef count_primitive(f, name, *args):\n    def count(jaxpr):\n        n = 0\n        for eqn in jaxpr.eqns:\n            n += eqn.primitive.name == name\n            for key in JAXPR_PARAMS:\n                value = eqn.params.get(key)\n                for sub in (value if isinstance(value, tuple) else (value,)):\n                    if isinstance(sub, jex.core.Jaxpr):\n                        n += count(sub)\n        return n\n\n    return int(count(jax.make_jaxpr(f)(*args)))\n'),
    W('b', 'caches the traced jaxpr per function: the same f called again with arguments of another dtype/shape is counted on the first trace',
      '_jaxpr_cache = {}\n\ndef count_primitive(f, name, *args):\n    if f not in _jaxpr_cache:       # trace each function once\n        _jaxpr_cache[f] = jax.make_jaxpr(f)(*args)\n\n    def count(jaxpr):\n        n = 0\n        for eqn in jaxpr.eqns:\n            n += eqn.primitive.name == name\n            for value in eqn.params.values():\n                for sub in (value if isinstance(value, tuple) else (value,)):\n                    if isinstance(sub, jex.core.Jaxpr):\n                        n += count(sub)\n        return n\n\n    return int(count(_jaxpr_cache[f]))\n'),
]
WRONG['ex3_answer'] += [
    W('b', "caches the lowered text per function: the same f lowered again for arguments of another dtype gets the first program's operations",
      '_lowered_text = {}\n\ndef stablehlo_ops(f, *args):\n    if f not in _lowered_text:          # lowering is slow; do it once per function\n        _lowered_text[f] = jax.jit(f).lower(*args).as_text()\n    return sorted(set(re.findall(r"stablehlo\\.([A-Za-z_0-9]+)", _lowered_text[f])))\n'),
]
WRONG['ex4_answer'] += [
    W('m', 'treats a non-finite result as failure: a call that returns NaN/inf (jnp.log at a negative x) is reported False',
      'def what_works(f, x):\n    def works(call):\n        try:\n            out = call()\n        except Exception:\n            return False\n        # the call returned: check it actually produced numbers\n        return all(bool(jnp.all(jnp.isfinite(leaf))) for leaf in jax.tree.leaves(out))\n\n    return {\n        "jit": works(lambda: jax.jit(f)(x)),\n        "jvp": works(lambda: jax.jvp(f, (x,), (jnp.ones_like(x),))),\n        "grad": works(lambda: jax.grad(lambda v: f(v).sum())(x)),\n        "vmap": works(lambda: jax.vmap(f)(jnp.stack([x, x]))),\n    }\n'),
    W('b', 'first checks f(x) eagerly and reports everything False if that fails: a primitive with a lowering but no impl works under jit',
      'def what_works(f, x):\n    results = {"jit": False, "jvp": False, "grad": False, "vmap": False}\n    try:\n        jax.block_until_ready(f(x))      # if f itself does not run, nothing built on it will\n    except Exception:\n        return results\n    attempts = {\n        "jit": lambda: jax.jit(f)(x),\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    for name, attempt in attempts.items():\n        try:\n            jax.block_until_ready(attempt())\n            results[name] = True\n        except Exception:\n            pass\n    return results\n'),
    W('c', 'builds the vmap batch with jnp.vstack: a 0-d x becomes shape (2, 1), so f is mapped over (1,)-shaped rows instead of scalars',
      'def what_works(f, x):\n    attempts = {\n        "jit": lambda: jax.jit(f)(x),\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n        "vmap": lambda: jax.vmap(f)(jnp.vstack([x, x])),\n    }\n    results = {}\n    for name, attempt in attempts.items():\n        try:\n            jax.block_until_ready(attempt())\n            results[name] = True\n        except Exception:\n            results[name] = False\n    return results\n'),
    W('c', "stacks along the last axis and maps with in_axes=-1: f's batching rules see the batch at the last axis, not at 0 as jax.vmap(f)(jnp.stack([x, x])) gives",
      'def what_works(f, x):\n    attempts = {\n        "jit": lambda: jax.jit(f)(x),\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n        "vmap": lambda: jax.vmap(f, in_axes=-1, out_axes=-1)(jnp.stack([x, x], axis=-1)),\n    }\n    results = {}\n    for name, attempt in attempts.items():\n        try:\n            jax.block_until_ready(attempt())\n            results[name] = True\n        except Exception:\n            results[name] = False\n    return results\n'),
    W('m', "skips grad when jvp failed ('grad is built on the JVP rule'): a primitive with a linearization rule but no JVP rule differentiates under grad",
      'def what_works(f, x):\n    def works(call):\n        try:\n            jax.block_until_ready(call())\n            return True\n        except Exception:\n            return False\n\n    results = {"jit": works(lambda: jax.jit(f)(x)),\n               "jvp": works(lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)))}\n    # grad linearizes with the JVP rules first: without jvp it cannot work\n    results["grad"] = results["jvp"] and works(lambda: jax.grad(lambda v: f(v).sum())(x))\n    results["vmap"] = works(lambda: jax.vmap(f)(jnp.stack([x, x])))\n    return results\n'),
    W('b', 'caches the answer per function: the same f asked again at an x of another dtype or shape gets the first answer',
      '_works_cache = {}\n\ndef what_works(f, x):\n    if f in _works_cache:\n        return dict(_works_cache[f])\n    attempts = {\n        "jit": lambda: jax.jit(f)(x),\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    results = {}\n    for name, attempt in attempts.items():\n        try:\n            jax.block_until_ready(attempt())\n            results[name] = True\n        except Exception:\n            results[name] = False\n    _works_cache[f] = dict(results)\n    return results\n'),
]

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex2_answer'] += [
    W('c', 'traces a closure over the arguments: Python-int arguments become static, so add_up(1.0, 3) has no while (count 0) and a scan',
      'def count_primitive(f, name, *args):\n    jaxpr = jax.make_jaxpr(lambda: f(*args))()\n\n    def count(j):\n        n = 0\n        for eqn in j.eqns:\n            n += eqn.primitive.name == name\n            for value in eqn.params.values():\n                values = value if isinstance(value, tuple) else (value,)\n                n += sum(count(v) for v in values if isinstance(v, jex.core.Jaxpr))\n        return int(n)\n\n    return count(jaxpr)\n'),
    W('m', 'traces jax.jit(f) instead of f: count_primitive(f, "jit") is one too many for every f',
      'def count_primitive(f, name, *args):\n    jaxpr = jax.make_jaxpr(jax.jit(f))(*args)\n\n    def count(j):\n        n = 0\n        for eqn in j.eqns:\n            n += eqn.primitive.name == name\n            for value in eqn.params.values():\n                values = value if isinstance(value, tuple) else (value,)\n                n += sum(count(v) for v in values if isinstance(v, jex.core.Jaxpr))\n        return int(n)\n\n    return count(jaxpr)\n'),
    W('m', 'treats a nested jit as transparent: walks into it but never counts jit equations themselves',
      'def count_primitive(f, name, *args):\n    jaxpr = jax.make_jaxpr(f)(*args)\n\n    def count(j):\n        n = 0\n        for eqn in j.eqns:\n            if eqn.primitive.name == name and name != "jit":\n                n += 1\n            for value in eqn.params.values():\n                values = value if isinstance(value, tuple) else (value,)\n                n += sum(count(v) for v in values if isinstance(v, jex.core.Jaxpr))\n        return n\n\n    return count(jaxpr)\n'),
    W('m', 'counts the output variables of matching equations, not the equations: a scan/while/cond with several outputs counts several times, a no-output equation 0',
      'def count_primitive(f, name, *args):\n    jaxpr = jax.make_jaxpr(f)(*args)\n\n    def count(j):\n        n = 0\n        for eqn in j.eqns:\n            if eqn.primitive.name == name:\n                n += len(eqn.outvars)\n            for value in eqn.params.values():\n                values = value if isinstance(value, tuple) else (value,)\n                n += sum(count(v) for v in values if isinstance(v, jex.core.Jaxpr))\n        return n\n\n    return count(jaxpr)\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'skips names that follow "#stablehlo." (attributes, not operations): misses e.g. output_operand_alias of a LAPACK custom_call (jnp.linalg.solve)',
      'def stablehlo_ops(f, *args):\n    text = jax.jit(f).lower(*args).as_text()\n    return sorted(set(re.findall(r"(?<!#)stablehlo\\.([A-Za-z_0-9]+)", text)))\n'),
    W('c', 'requires the op name to be followed by a space, "(" or a quote: attribute names such as #stablehlo.output_operand_alias<...> are dropped',
      'def stablehlo_ops(f, *args):\n    text = jax.jit(f).lower(*args).as_text()\n    return sorted(set(re.findall(r\'stablehlo\\.([A-Za-z_0-9]+)(?=[\\s("])\', text)))\n'),
    W('c', 'splits the text into whitespace tokens and keeps those starting with stablehlo. (after stripping quotes): attribute tokens like <{...#stablehlo.gather<...> and #stablehlo.output_operand_alias are never seen',
      'def stablehlo_ops(f, *args):\n    text = jax.jit(f).lower(*args).as_text()\n    ops = set()\n    for token in text.split():\n        token = token.strip(\'"\')\n        if token.startswith("stablehlo."):\n            ops.add(re.match(r"stablehlo\\.([A-Za-z_0-9]+)", token).group(1))\n    return sorted(ops)\n'),
    W('c', 'marks the Python-scalar arguments static (they are not arrays): a scalar becomes a constant in the program, so x * 2.0 lowers with no convert',
      'def stablehlo_ops(f, *args):\n    static = tuple(i for i, a in enumerate(args) if isinstance(a, (bool, int, float)))\n    text = jax.jit(f, static_argnums=static).lower(*args).as_text()\n    return sorted(set(re.findall(r"stablehlo\\.([A-Za-z_0-9]+)", text)))\n'),
]
WRONG['ex4_answer'] += [
    W('m', 'tries jvp as jax.jacfwd(f)(x), which vmaps the JVP: a primitive with a JVP rule but no batching rule (square_p) is reported jvp=False',
      'def what_works(f, x):\n    attempts = {\n        "jit": lambda: jax.jit(f)(x),\n        "jvp": lambda: jax.jacfwd(f)(x),\n        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    result = {}\n    for name, attempt in attempts.items():\n        try:\n            jax.block_until_ready(attempt())\n            result[name] = True\n        except Exception:\n            result[name] = False\n    return result\n'),
    W('m', 'tries grad as jax.jacrev(f)(x), which vmaps the pullback: needs batching rules for the backward pass that grad does not',
      'def what_works(f, x):\n    attempts = {\n        "jit": lambda: jax.jit(f)(x),\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.jacrev(f)(x),\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    result = {}\n    for name, attempt in attempts.items():\n        try:\n            jax.block_until_ready(attempt())\n            result[name] = True\n        except Exception:\n            result[name] = False\n    return result\n'),
    W('c', 'casts f(v) to float32 before summing (for float16 accuracy): an integer-valued f, whose .sum() grad raises, is reported grad=True',
      'def what_works(f, x):\n    attempts = {\n        "jit": lambda: jax.jit(f)(x),\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.grad(lambda v: f(v).astype(jnp.float32).sum())(x),\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    result = {}\n    for name, attempt in attempts.items():\n        try:\n            jax.block_until_ready(attempt())\n            result[name] = True\n        except Exception:\n            result[name] = False\n    return result\n'),
    W('c', 'takes jax.grad(f) directly when x is 0-d (a scalar function): a 0-d x with a non-scalar output is reported grad=False',
      'def what_works(f, x):\n    def try_grad():\n        if jnp.ndim(x) == 0:\n            return jax.grad(f)(x)\n        return jax.grad(lambda v: f(v).sum())(x)\n\n    attempts = {\n        "jit": lambda: jax.jit(f)(x),\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": try_grad,\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    result = {}\n    for name, attempt in attempts.items():\n        try:\n            jax.block_until_ready(attempt())\n            result[name] = True\n        except Exception:\n            result[name] = False\n    return result\n'),
    W('c', 'uses the Python scalar 1.0 as the tangent when x is 0-d: a 0-d float16 x gets a float32 tangent and jvp is reported False',
      'def what_works(f, x):\n    tangent = 1.0 if jnp.ndim(x) == 0 else jnp.ones_like(x)   # a scalar tangent for a scalar x\n    attempts = {\n        "jit": lambda: jax.jit(f)(x),\n        "jvp": lambda: jax.jvp(f, (x,), (tangent,)),\n        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    result = {}\n    for name, attempt in attempts.items():\n        try:\n            jax.block_until_ready(attempt())\n            result[name] = True\n        except Exception:\n            result[name] = False\n    return result\n'),
]

# Round 5: written from the text alone; it earned full marks until a visible check used a function whose vmap
# works over one example and fails over two.
WRONG['ex4_answer'] += [
    W('c', 'vmap tried over a batch of one (jnp.expand_dims(x, 0)), not jnp.stack([x, x]): a function that fails '
           'only with two or more examples is reported as working',
      'def what_works(f, x):\n'
      '    def tries(thunk):\n'
      '        try:\n'
      '            jax.block_until_ready(thunk())\n'
      '            return True\n'
      '        except Exception:\n'
      '            return False\n'
      '    return {\n'
      '        "jit": tries(lambda: jax.jit(f)(x)),\n'
      '        "jvp": tries(lambda: jax.jvp(f, (x,), (jnp.ones_like(x),))),\n'
      '        "grad": tries(lambda: jax.grad(lambda v: f(v).sum())(x)),\n'
      '        "vmap": tries(lambda: jax.vmap(f)(jnp.expand_dims(x, 0))),\n'
      '    }\n'),
]

# Round 7: written from the text alone by a reviewer who had not read the checks. The first was refused by a
# check the text did not state (the text said "operation names"; the text now says attribute names count);
# the other two earned full marks until visible checks used eager_double and an f that returns a pair.
WRONG['ex3_answer'] += [
    W('m', "walks the module's operations (op.name) instead of reading the text: misses the attribute name "
           "output_operand_alias that the task counts",
      'def stablehlo_ops(f, *args):\n'
      '    module = jax.jit(f).lower(*args).compiler_ir("stablehlo")\n'
      '    found = set()\n'
      '    def walk(op):\n'
      '        if op.name.startswith("stablehlo."):\n'
      '            found.add(op.name[len("stablehlo."):])\n'
      '        for region in op.regions:\n'
      '            for block in region.blocks:\n'
      '                for inner in block.operations:\n'
      '                    walk(inner.operation)\n'
      '    walk(module.operation)\n'
      '    return sorted(found)\n'),
]
WRONG['ex4_answer'] += [
    W('m', 'tries jvp with jax.linearize, which traces the tangent part as grad does: a primitive without an abstract '
           'evaluation whose JVP rule applies it to tangents (eager_double) is reported jvp=False',
      'def what_works(f, x):\n'
      '    tries = {\n'
      '        "jit": lambda: jax.jit(f)(x),\n'
      '        "jvp": lambda: jax.linearize(f, x)[1](jnp.ones_like(x)),\n'
      '        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n'
      '        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n'
      '    }\n'
      '    out = {}\n'
      '    for name, run in tries.items():\n'
      '        try:\n'
      '            jax.block_until_ready(run())\n'
      '            out[name] = True\n'
      '        except Exception:\n'
      '            out[name] = False\n'
      '    return out\n'),
    W('m', 'takes the jvp of f(v).sum(), the function grad uses, not of f: an f that returns a pair is reported jvp=False',
      'def what_works(f, x):\n'
      '    scalar = lambda v: f(v).sum()\n'
      '    tries = {\n'
      '        "jit": lambda: jax.jit(f)(x),\n'
      '        "jvp": lambda: jax.jvp(scalar, (x,), (jnp.ones_like(x),)),\n'
      '        "grad": lambda: jax.grad(scalar)(x),\n'
      '        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n'
      '    }\n'
      '    out = {}\n'
      '    for name, run in tries.items():\n'
      '        try:\n'
      '            jax.block_until_ready(run())\n'
      '            out[name] = True\n'
      '        except Exception:\n'
      '            out[name] = False\n'
      '    return out\n'),
]

# Round 8: written from the text alone by a second reviewer; it lost its points only to a hidden check until a visible
# check counted the jits of a jit whose function calls another jitted function.
WRONG['ex2_answer'] += [
    W('c', 'does not walk into an equation that itself matches: a cond inside a cond branch, or a jit inside a jit, counts once',
      'def count_primitive(f, name, *args):\n'
      '    def count(jaxpr):\n'
      '        total = 0\n'
      '        for eqn in jaxpr.eqns:\n'
      '            if eqn.primitive.name == name:\n'
      '                total += 1\n'
      '                continue                       # found it, move on\n'
      '            for value in eqn.params.values():\n'
      '                for v in (value if isinstance(value, tuple) else (value,)):\n'
      '                    if isinstance(v, jex.core.Jaxpr):\n'
      '                        total += count(v)\n'
      '        return total\n'
      '\n'
      '    return count(jax.make_jaxpr(f)(*args))\n'),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('c', 'skips an equation (and its sub-jaxprs) once its primitive name is recorded: a second cond/jit/scan with other primitives inside is never opened',
      'def primitive_names(f, *args):\n    names = set()\n    def walk(jaxpr):\n        for eqn in jaxpr.eqns:\n            if eqn.primitive.name in names:\n                continue          # seen this primitive already\n            names.add(eqn.primitive.name)\n            for value in eqn.params.values():\n                for v in (value if isinstance(value, tuple) else (value,)):\n                    if isinstance(v, jex.core.Jaxpr):\n                        walk(v)\n    walk(jax.make_jaxpr(f)(*args))\n    return sorted(names)\n'),
    W('m', 'traces jax.jit(f) with make_jaxpr: the top level becomes one jit equation, so "jit" is listed for every f',
      'def primitive_names(f, *args):\n    names = set()\n    def walk(jaxpr):\n        for eqn in jaxpr.eqns:\n            names.add(eqn.primitive.name)\n            for value in eqn.params.values():\n                for v in (value if isinstance(value, tuple) else (value,)):\n                    if isinstance(v, jex.core.Jaxpr):\n                        walk(v)\n    walk(jax.make_jaxpr(jax.jit(f))(*args))\n    return sorted(names)\n'),
]
WRONG['ex2_answer'] += [
]
WRONG['ex3_answer'] += [
]
WRONG['ex4_answer'] += [
    W('c', 'forces the jit run with the .block_until_ready() method: a function returning a tuple (no such method) is reported jit=False',
      'def what_works(f, x):\n    results = {}\n    try:\n        jax.jit(f)(x).block_until_ready()\n        results["jit"] = True\n    except Exception:\n        results["jit"] = False\n    try:\n        jax.block_until_ready(jax.jvp(f, (x,), (jnp.ones_like(x),)))\n        results["jvp"] = True\n    except Exception:\n        results["jvp"] = False\n    try:\n        jax.block_until_ready(jax.grad(lambda v: f(v).sum())(x))\n        results["grad"] = True\n    except Exception:\n        results["grad"] = False\n    try:\n        jax.block_until_ready(jax.vmap(f)(jnp.stack([x, x])))\n        results["vmap"] = True\n    except Exception:\n        results["vmap"] = False\n    return results\n'),
]
WRONG['quiz_answer'] += [
]

# Round 9: right answers written another way.
RIGHT = {}
RIGHT.setdefault('ex3_answer', []).extend([
    R('prints the StableHLO module itself (str of compiler_ir("stablehlo")) and reads the names off it',
      'def stablehlo_ops(f, *args):\n    text = str(jax.jit(f).trace(*args).lower().compiler_ir("stablehlo"))\n    return sorted(set(re.findall(r"stablehlo\\.(\\w+)", text)))\n'),
])
RIGHT.setdefault('ex4_answer', []).extend([
    R('one helper that runs a thunk and blocks on its result, catching Exception, blocking on all four results; dict built by comprehension',
      'def _runs(thunk):\n    try:\n        jax.block_until_ready(thunk())\n    except Exception:\n        return False\n    return True\n\ndef what_works(f, x):\n    x = jnp.asarray(x)\n    tries = (("jit", lambda: jax.jit(f)(x)),\n             ("jvp", lambda: jax.jvp(f, (x,), (jnp.ones_like(x),))),\n             ("grad", lambda: jax.grad(lambda v: f(v).sum())(x)),\n             ("vmap", lambda: jax.vmap(f)(jnp.stack((x, x)))))\n    return {k: bool(_runs(t)) for k, t in tries}\n'),
])

# Round 11: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('c', "recurses into a param only when type(value) is tuple: custom_linear_solve's jaxprs is a namedtuple (_LinearSolveTuple), so the solve bodies are missed",
      'def primitive_names(f, *args):\n    names = set()\n\n    def walk(jaxpr):\n        for eqn in jaxpr.eqns:\n            names.add(eqn.primitive.name)\n            for value in eqn.params.values():\n                values = value if type(value) is tuple else (value,)\n                for v in values:\n                    if isinstance(v, jex.core.Jaxpr):\n                        walk(v)\n\n    walk(jax.make_jaxpr(f)(*args))\n    return sorted(names)\n'),
]
WRONG['ex2_answer'] += [
    W('c', "recurses into a param only when type(value) is tuple: custom_linear_solve's jaxprs is a namedtuple, its matvec/solve equations are not counted",
      'def count_primitive(f, name, *args):\n    def count(jaxpr):\n        total = 0\n        for eqn in jaxpr.eqns:\n            total += eqn.primitive.name == name\n            for value in eqn.params.values():\n                values = value if type(value) is tuple else (value,)\n                for v in values:\n                    if isinstance(v, jex.core.Jaxpr):\n                        total += count(v)\n        return total\n\n    return int(count(jax.make_jaxpr(f)(*args)))\n'),
]
WRONG['ex4_answer'] += [
    W('m', 'tries grad as jax.vjp(lambda v: f(v).sum(), x) without calling the pullback: the transpose never runs, so a primitive with no transpose rule is reported grad=True',
      'def what_works(f, x):\n    attempts = {\n        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.vjp(lambda v: f(v).sum(), x),   # reverse mode, without computing anything yet\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    result = {}\n    for key, attempt in attempts.items():\n        try:\n            attempt()\n            result[key] = True\n        except Exception:\n            result[key] = False\n    return result\n'),
    W('c', 'forces the jit result with np.asarray(out): a tuple output whose arrays differ in shape cannot be stacked, so jit is reported False though jax.jit(f)(x) returned',
      'def what_works(f, x):\n    def run_jit():\n        np.asarray(jax.jit(f)(x))      # bring the result to the host: the program has really run\n    attempts = {\n        "jit": run_jit,\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    result = {}\n    for key, attempt in attempts.items():\n        try:\n            attempt()\n            result[key] = True\n        except Exception:\n            result[key] = False\n    return result\n'),
    W('m', 'jits f once and tries jvp, grad and vmap on jax.jit(f) (to compile once): every transformation now needs a lowering rule, so a primitive without one is reported jvp/grad/vmap=False',
      'def what_works(f, x):\n    jf = jax.jit(f)                    # compile once, reuse for every transformation\n    attempts = {\n        "jit": lambda: jax.block_until_ready(jf(x)),\n        "jvp": lambda: jax.jvp(jf, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.grad(lambda v: jf(v).sum())(x),\n        "vmap": lambda: jax.vmap(jf)(jnp.stack([x, x])),\n    }\n    result = {}\n    for key, attempt in attempts.items():\n        try:\n            attempt()\n            result[key] = True\n        except Exception:\n            result[key] = False\n    return result\n'),
]

# Round 11: right answers written another way.
RIGHT.setdefault('ex4_answer', []).extend([
    R('jit run through the staged API (lower, compile, call, wait), vmap batch by broadcast_to, jvp args as lists, OrderedDict result (an OrderedDict, which is a dict)',
      'import collections\n\ndef what_works(f, x):\n    def run_jit():\n        jax.block_until_ready(jax.jit(f).lower(x).compile()(x))\n    attempts = [\n        ("jit", run_jit),\n        ("jvp", lambda: jax.jvp(f, [x], [jnp.ones_like(x)])),\n        ("grad", lambda: jax.grad(lambda v: f(v).sum())(x)),\n        ("vmap", lambda: jax.vmap(f)(jnp.broadcast_to(x, (2, *jnp.shape(x))))),\n    ]\n    result = collections.OrderedDict()\n    for key, attempt in attempts:\n        try:\n            attempt()\n        except Exception:\n            result[key] = False\n        else:\n            result[key] = True\n    return result\n'),
])

# Written from the exercise texts as they read once each self-check became a call of grader/selfchecks/ch05.py.
WRONG['ex4_answer'] += [
    W('f', "calls jax.jit(f)(x) without waiting for it: a program of more than 1000 flops runs after the call returned, so its failure is never seen and jit is reported True",
      'def what_works(f, x):\n    attempts = {\n        "jit": lambda: jax.jit(f)(x),\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    result = {}\n    for name, attempt in attempts.items():\n        try:\n            attempt()\n            result[name] = True\n        except Exception:\n            result[name] = False\n    return result\n'),
    W('m', "returns 1 and 0 for works and fails, not the bools True and False the text asks for",
      'def what_works(f, x):\n    attempts = {\n        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.grad(lambda v: f(v).sum())(x),\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    result = {}\n    for name, attempt in attempts.items():\n        try:\n            attempt()\n            result[name] = 1\n        except Exception:\n            result[name] = 0\n    return result\n'),
]
WRONG['ex1_answer'] += [
    W('m', "returns a sorted tuple of the names, not the list the text asks for",
      'def primitive_names(f, *args):\n    names = set()\n\n    def walk(jaxpr):\n        for eqn in jaxpr.eqns:\n            names.add(eqn.primitive.name)\n            for value in eqn.params.values():\n                for v in value if isinstance(value, tuple) else (value,):\n                    if isinstance(v, jex.core.Jaxpr):\n                        walk(v)\n\n    walk(jax.make_jaxpr(f)(*args))\n    return tuple(sorted(names))\n'),
]
WRONG['ex3_answer'] += [
    W('m', "collects the names of the operations only (those after '= stablehlo.' or a quote), not every name the text holds: misses return, applies stablehlo.add and the #stablehlo attribute",
      'def stablehlo_ops(f, *args):\n    text = jax.jit(f).lower(*args).as_text()\n    return sorted(set(re.findall(r\'(?:= |")stablehlo\\.(\\w+)\', text)))\n'),
]

# A reader's round: the text now says what "grad" is for an f that returns a tuple (the call raises, so False); an
# answer that sums each output instead was already wrong, and is caught visibly.
WRONG['ex4_answer'] += [
    W('m', "sums every output of a tuple-valued f before grad: lambda v: (jnp.sin(v), jnp.cos(v)) is reported grad=True, "
           "though jax.grad(lambda v: f(v).sum())(x), as the text writes it, raises",
      'def what_works(f, x):\n'
      '    def total(v):\n'
      '        out = f(v)\n'
      '        return sum(o.sum() for o in out) if isinstance(out, tuple) else out.sum()\n'
      '\n'
      '    attempts = {\n'
      '        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),\n'
      '        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n'
      '        "grad": lambda: jax.grad(total)(x),\n'
      '        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n'
      '    }\n'
      '    works = {}\n'
      '    for name, attempt in attempts.items():\n'
      '        try:\n'
      '            attempt()\n'
      '            works[name] = True\n'
      '        except Exception:\n'
      '            works[name] = False\n'
      '    return works\n'),
]


# A third fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex4_answer'] += [
    W('c', 'batch built with jnp.concatenate of atleast_1d(x) twice: a (2n,) vector, so vmap maps f over single values, not over copies of x',
      'def what_works(f, x):\n    def returns(call):\n        try:\n            jax.block_until_ready(call())\n            return True\n        except Exception:\n            return False\n    return {\n        "jit": returns(lambda: jax.jit(f)(x)),\n        "jvp": returns(lambda: jax.jvp(f, (x,), (jnp.ones_like(x),))),\n        "grad": returns(lambda: jax.grad(lambda v: f(v).sum())(x)),\n        "vmap": returns(lambda: jax.vmap(f)(jnp.concatenate([jnp.atleast_1d(x), jnp.atleast_1d(x)]))),\n    }\n'),
]

WRONG['ex4_answer'] += [
    W('m', 'waits on each leaf with its .block_until_ready(): a float0 tangent (an integer output) has none, so its jvp is reported as failing',
      'def _works(thunk):\n    try:\n        out = thunk()\n        for leaf in jax.tree_util.tree_leaves(out):\n            leaf.block_until_ready()\n    except BaseException as err:\n        if isinstance(err, (KeyboardInterrupt, SystemExit)):\n            raise\n        return False\n    return True\n\ndef what_works(f, x):\n    x = jnp.asarray(x)\n    batch = jnp.broadcast_to(x, (2,) + x.shape)\n    tangent = jnp.ones(x.shape, x.dtype)\n    result = dict()\n    result["jit"] = _works(lambda: jax.jit(f).lower(x).compile()(x))\n    result["jvp"] = _works(lambda: jax.jvp(f, (x,), (tangent,)))\n    result["grad"] = _works(lambda: jax.grad(lambda v: f(v).sum())(x))\n    result["vmap"] = _works(lambda: jax.vmap(f)(batch))\n    return {k: bool(v) for k, v in result.items()}\n'),
]


# A ninth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('f', 'caches per (function, shapes, dtypes): does not trace again on a second call',
      '\ndef _bl10_walk(j, acc):\n    for e in j.eqns:\n        acc.add(e.primitive.name)\n        for v in e.params.values():\n            for s in (v if isinstance(v, tuple) else (v,)):\n                if isinstance(s, jex.core.Jaxpr):\n                    _bl10_walk(s, acc)\n    return acc\n\n_bl10_cache = {}\ndef primitive_names(f, *args):\n    key = (f, tuple((jnp.shape(a), str(jnp.result_type(a))) for a in args))\n    if key not in _bl10_cache:\n        _bl10_cache[key] = sorted(_bl10_walk(jax.make_jaxpr(f)(*args), set()))\n    return list(_bl10_cache[key])\n'),
]
WRONG['ex3_answer'] += [
    W('f', 'caches per (function, shapes, dtypes)',
      '_bl10_ops = {}\ndef stablehlo_ops(f, *args):\n    key = (f, tuple((jnp.shape(a), str(jnp.result_type(a))) for a in args))\n    if key not in _bl10_ops:\n        text = jax.jit(f).lower(*args).as_text()\n        _bl10_ops[key] = sorted(set(re.findall(r"stablehlo\\.(\\w+)", text)))\n    return list(_bl10_ops[key])\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'regex also matches chlo./mhlo. names',
      'def stablehlo_ops(f, *args):\n    text = jax.jit(f).lower(*args).as_text()\n    return sorted(set(re.findall(r"(?:stable|c)hlo\\.(\\w+)", text)))\n'),
]
RIGHT.setdefault('ex1_answer', []).extend([
    R('every argument through jnp.asarray first (a Python scalar stays weakly typed, so the jaxpr is the same)',
      '\ndef _bl10_walk(j, acc):\n    for e in j.eqns:\n        acc.add(e.primitive.name)\n        for v in e.params.values():\n            for s in (v if isinstance(v, tuple) else (v,)):\n                if isinstance(s, jex.core.Jaxpr):\n                    _bl10_walk(s, acc)\n    return acc\n\ndef primitive_names(f, *args):\n    args = [jnp.asarray(a) for a in args]\n    return sorted(_bl10_walk(jax.make_jaxpr(f)(*args), set()))\n'),
])
RIGHT.setdefault('ex4_answer', []).extend([
    R('grad of jnp.sum(f(v)): jnp.sum refuses a tuple output, so grad is False as for .sum()',
      'def what_works(f, x):\n    tries = {\n        "jit": lambda: jax.block_until_ready(jax.jit(f)(x)),\n        "jvp": lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)),\n        "grad": lambda: jax.grad(lambda v: jnp.sum(f(v)))(x),\n        "vmap": lambda: jax.vmap(f)(jnp.stack([x, x])),\n    }\n    out = {}\n    for k, t in tries.items():\n        try:\n            t()\n            out[k] = True\n        except Exception:\n            out[k] = False\n    return out\n'),
])
