"""C++ that refuses bad buffers: each FFI target the course registers, called with a result of the wrong
size or a buffer of the wrong dtype, fails with an error that names it (never a crash or garbage); the
float64 path of rms_norm_fwd adds eps in float64; and the ctypes row moments of an empty row are NaN."""

from __future__ import annotations

import ctypes
import json
import re
import signal
import subprocess
import sys
import textwrap
import warnings
from concurrent.futures import ThreadPoolExecutor

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jbj_fast_kernels
from grader.builder import build
from conftest import ROOT

pytestmark = pytest.mark.slow

CH11 = "solutions/11_cpp_ffi/11_cpp_ffi.ipynb"
CH12 = "solutions/12_fast_kernels/12_fast_kernels.ipynb"
FAST_FLAGS = ["-O3", "-march=native"]    # chapter 12's flags, so the chapter's cached build is reused

# Where each library comes from: a file of cpp/ (with flags), a `<name>_cc` string of a solution
# notebook's cell (built as the cell builds it), or the installed jbj_fast_kernels package.
LIBRARIES = {
    "ffi_rms_norm": {"kind": "file", "source": "ffi_rms_norm.cc", "flags": []},
    "ffi_watch": {"kind": "file", "source": "ffi_watch.cc", "flags": []},
    "ffi_exceptions": {"kind": "file", "source": "ffi_exceptions.cc", "flags": []},
    "fast_rms_norm": {"kind": "file", "source": "fast_rms_norm.cc", "flags": FAST_FLAGS},
    "pool_watch": {"kind": "file", "source": "pool_watch.cc", "flags": ["-O2", "-pthread"]},
    "package": {"kind": "package"},
    "silu": {"kind": "cell", "notebook": CH11, "variable": "silu_cc", "flags": []},
    "row_minmax": {"kind": "cell", "notebook": CH11, "variable": "row_minmax_cc", "flags": []},
    "standardize": {"kind": "cell", "notebook": CH12, "variable": "standardize_cc", "flags": FAST_FLAGS},
    "scale_rows": {"kind": "cell", "notebook": CH12, "variable": "scale_rows_cc", "flags": ["-O3"]},
    "l2": {"kind": "cell", "notebook": CH12, "variable": "l2_cc", "flags": FAST_FLAGS},
}

F32 = "float32"
X = [[4, 8], F32]         # an input of 4 rows of 8
ROWS = [[4], F32]         # one value per row
EPS = {"eps": [F32, 1e-5]}


def target(library, symbol, name, args, results, attrs=None, bad_args=()):
    """A handler, how a right call looks (argument and result [shape, dtype]s, attributes as [dtype, value]),
    the name its errors must say, and which arguments must agree in size with the others."""
    return {"library": library, "symbol": symbol, "name": name, "args": args, "results": results,
            "attrs": attrs or {}, "bad_args": list(bad_args)}


# Every handler of cpp/ and of the package, and those the solutions of chapters 11 and 12 build from
# their cells and that write results whose size depends on the input. (trace and call_counter bind
# rank-0 results, whose size the binding fixes; always_fails never writes.)
TARGETS = {
    "rms_norm": target("ffi_rms_norm", "RmsNorm", "rms_norm", [X], [X], EPS),
    "rms_norm_fwd": target("ffi_rms_norm", "RmsNormFwd", "rms_norm_fwd", [X], [X, ROWS], {"eps": ["float64", 1e-5]}),
    "rms_norm_bwd": target("ffi_rms_norm", "RmsNormBwd", "rms_norm_bwd", [ROWS, X, X], [X], bad_args=[0, 2]),
    "shape_probe": target("ffi_watch", "ShapeProbe", "shape_probe", [X, X], [X]),
    "slow_copy": target("ffi_watch", "SlowCopy", "slow_copy", [X], [X]),
    "take": target("ffi_exceptions", "Take", "take", [X, [[4], "int32"]], [ROWS], bad_args=[1]),
    "take_own_error": target("ffi_exceptions", "TakeOwnError", "take", [X, [[4], "int32"]], [ROWS], bad_args=[1]),
    "take_safe": target("ffi_exceptions", "TakeSafe", "take", [X, [[4], "int32"]], [ROWS], bad_args=[1]),
    "ch12.RmsNormVec": target("fast_rms_norm", "RmsNormVec", "rms_norm_vec", [X], [X], EPS),
    "ch12.RmsNormFast": target("fast_rms_norm", "RmsNormFast", "rms_norm_fast", [X], [X], EPS),
    "ch12.RmsNormFastFwd": target("fast_rms_norm", "RmsNormFastFwd", "rms_norm_fast_fwd", [X], [X, ROWS], EPS),
    "ch12.RmsNormFastBwd": target("fast_rms_norm", "RmsNormFastBwd", "rms_norm_fast_bwd", [ROWS, X, X], [X],
                                  bad_args=[0, 2]),
    "ch12.RmsNormFastBwdRecompute": target("fast_rms_norm", "RmsNormFastBwdRecompute", "rms_norm_fast_bwd_recompute",
                                           [X, X], [X], EPS, bad_args=[1]),
    "ch12.StreamRead": target("fast_rms_norm", "StreamRead", "stream_read", [X], [[[], F32]]),
    "ch12.StreamWrite": target("fast_rms_norm", "StreamWrite", "stream_write", [X], [X], {"value": [F32, 7.0]}),
    "ch12.StreamScale": target("fast_rms_norm", "StreamScale", "stream_scale", [X], [X], {"q": [F32, 0.5]}),
    "ch12.StreamTriad": target("fast_rms_norm", "StreamTriad", "stream_triad", [X, X, X], [X], {"q": [F32, 0.5]},
                               bad_args=[1, 2]),
    **{f"jbj_fast_kernels.{name}": target("package", name, name, *call) for name, call in {
        "rms_norm_vec": ([X], [X], EPS),
        "rms_norm_fast": ([X], [X], EPS),
        "rms_norm_fast_fwd": ([X], [X, ROWS], EPS),
        "rms_norm_fast_bwd": ([ROWS, X, X], [X], None, [0, 2]),
    }.items()},
    "silu_fwd": target("silu", "SiluFwd", "silu_fwd", [X], [X]),
    "silu_bwd": target("silu", "SiluBwd", "silu_bwd", [X, X], [X], bad_args=[1]),
    "row_minmax": target("row_minmax", "RowMinMax", "row_minmax", [X], [ROWS, ROWS]),
    "ex1.standardize": target("standardize", "Standardize", "standardize_rows", [X], [X], EPS),
    "ex2.scale_rows": target("scale_rows", "ScaleRows", "scale_rows", [X, ROWS], [X], bad_args=[1]),
    "ex3.l2_fwd": target("l2", "L2Fwd", "l2_normalize", [X], [X], EPS),
    "ex3.l2_bwd": target("l2", "L2Bwd", "l2_normalize", [X, X], [X], EPS, bad_args=[1]),
    "ch12.pool_size": target("pool_watch", "PoolSize", "pool_size", [], [[[], "int32"]]),
}


def _resized(shape, step):
    """shape with one element more (step 1) or fewer (step -1) on its first axis; a 0-d shape becomes (2,) or (0,)."""
    return [shape[0] + step, *shape[1:]] if shape else [1 + step]


def cases(spec):
    """The calls made on one target: the right one, each result one row short and one row long, each
    argument that must agree with another one row short, and another dtype (int32, or float32 in place of
    int32) for the first argument and the first result."""
    out = {"right call": {}}
    for i, (shape, _) in enumerate(spec["results"]):
        out[f"result {i} one row short"] = {"results": {i: [_resized(shape, -1), None]}}
        out[f"result {i} one row long"] = {"results": {i: [_resized(shape, 1), None]}}
    for i in spec["bad_args"]:
        out[f"argument {i} one row short"] = {"args": {i: [_resized(spec["args"][i][0], -1), None]}}
    for kind in ("args", "results"):
        if spec[kind]:
            other = "float32" if spec[kind][0][1] == "int32" else "int32"
            out[f"{kind[:-1].replace('arg', 'argument')} 0 of dtype {other}"] = {kind: {0: [None, other]}}
    return out


def _changes(pairs, changes):
    """Per [shape, dtype] pair, its [shape, dtype] change ([None, None] for none)."""
    return [changes.get(i, [None, None]) for i in range(len(pairs))]


# Runs in a process of its own, so that a handler that writes out of bounds cannot take pytest down:
# registers the targets of one library, makes each call, and prints one JSON line per call as soon as
# it returns. It stops after a bad call that ran, whose writes may have corrupted the process.
WORKER = textwrap.dedent("""
    import json, os, re, sys
    import jax, jax.numpy as jnp, numpy as np
    import grader

    library, specs, calls = json.loads(sys.stdin.read())
    if library["kind"] == "package":
        import jbj_fast_kernels
        capsules = jbj_fast_kernels.registrations()
    else:
        if library["kind"] == "file":
            lib = grader.build(library["source"], flags=tuple(library["flags"]))
        else:
            cells = json.load(open(library["notebook"]))["cells"]
            text = "\\n".join("".join(cell["source"]) for cell in cells)
            code = re.search(library["variable"] + r' = r\\"\\"\\"(.*?)\\"\\"\\"', text, re.S).group(1)
            lib = grader.build(code=code, name=library["variable"], flags=tuple(library["flags"]))
        capsules = {spec["symbol"]: jax.ffi.pycapsule(lib.cdll[spec["symbol"]]) for spec in specs.values()}
    for registered, spec in specs.items():
        jax.ffi.register_ffi_target("bad_buffers." + registered, capsules[spec["symbol"]], platform="cpu")

    def pick(pairs, changes):
        out = []
        for i, (shape, dtype) in enumerate(pairs):
            new_shape, new_dtype = changes.get(str(i), [None, None])
            out.append((tuple(shape if new_shape is None else new_shape), new_dtype or dtype))
        return out

    for registered, case, change in calls:
        spec = specs[registered]
        attrs = {key: getattr(np, dtype)(value) for key, (dtype, value) in spec["attrs"].items()}
        rng = np.random.default_rng(0)
        args = [rng.uniform(0.5, 1.5, shape).astype(dtype) for shape, dtype in pick(spec["args"], change.get("args", {}))]
        results = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in pick(spec["results"], change.get("results", {}))]
        call = jax.ffi.ffi_call("bad_buffers." + registered, tuple(results))
        try:
            values = jax.block_until_ready(jax.jit(lambda *a: call(*a, **attrs))(*args))
            line = {"outcome": "ok", "shapes": [list(np.shape(v)) for v in values]}
        except Exception as err:
            line = {"outcome": "error", "type": type(err).__name__, "message": str(err)}
        print(json.dumps([registered, case, line]), flush=True)
        if line["outcome"] == "ok" and case != "right call":
            os._exit(0)  # a bad call that ran may have written out of bounds: the next call gets a fresh process
""")


def _run_library(library):
    """What each call of cases() gave each target of one library, by (target, case); a call the process did
    not live to answer says why. A process that stopped (or died) early is followed by one for the rest."""
    specs = {name: spec for name, spec in TARGETS.items() if spec["library"] == library}
    calls = [(name, case, change) for name, spec in specs.items() for case, change in cases(spec).items()]
    answers = {}
    while len(answers) < len(calls):
        rest = [call for call in calls if call[:2] not in answers]
        payload = json.dumps([LIBRARIES[library], specs, rest])
        proc = subprocess.run([sys.executable, "-c", WORKER], input=payload, capture_output=True, text=True,
                              cwd=ROOT, timeout=600)
        for line in proc.stdout.splitlines():
            if line.startswith("["):
                name, case, answer = json.loads(line)
                answers[name, case] = answer
        if proc.returncode != 0:  # it died in the first call it did not answer
            if proc.returncode < 0:
                died = f"the process died of {signal.Signals(-proc.returncode).name}"
            else:
                died = f"the process exited with status {proc.returncode}: {proc.stderr.strip()[-1500:]}"
            answers[next(call[:2] for call in rest if call[:2] not in answers)] = {"outcome": "died", "message": died}
    return answers


@pytest.fixture(scope="module")
def outcomes():
    """Every target's calls, made in one process per library, two at a time (the machine may have 2 cores)."""
    # Built once here, so a build error shows as itself and the workers find every library cached.
    build("ffi_rms_norm.cc")
    build("fast_rms_norm.cc", flags=tuple(FAST_FLAGS))
    with ThreadPoolExecutor(max_workers=2) as pool:
        return {key: answer for answers in pool.map(_run_library, LIBRARIES) for key, answer in answers.items()}


PARAMS = [pytest.param(name, case, id=f"{name}: {case}") for name, spec in TARGETS.items() for case in cases(spec)]


@pytest.mark.parametrize("registered, case", PARAMS)
def test_a_wrong_buffer_is_refused_with_an_error_that_names_the_target(outcomes, registered, case):
    """Does the target refuse a result (or an argument) of the wrong size with an INVALID_ARGUMENT that
    names it, and a wrong dtype with that error or the binding's own, without crashing; and does
    the right call still run?"""
    spec, got = TARGETS[registered], outcomes[registered, case]
    shapes = [change[0] or shape for shape, change in
              zip((shape for shape, _ in spec["results"]), _changes(spec["results"], cases(spec)[case].get("results", {})))]
    if case == "right call" or all(0 in shape for shape in shapes):
        # XLA does not call a handler whose every result is empty (nothing could be written): it runs.
        assert got["outcome"] == "ok", got
        assert got["shapes"] == shapes
        return
    assert got["outcome"] == "error", f"{registered} ({case}) did not refuse the call: {got}"
    assert got["type"] == "JaxRuntimeError", got
    message = got["message"]
    if "dtype" in case and re.search(r"Wrong buffer dtype: expected (F32|S32) but got (S32|F32)", message):
        return  # refused by the binding (ffi::Buffer<ffi::F32>, say) before the handler ran
    assert message.startswith("INVALID_ARGUMENT: "), message
    assert re.search(rf"\b{spec['name']}: ", message), f"the message does not name {spec['name']}: {message}"


def test_every_target_of_the_package_is_covered():
    """Does the test call every handler the installed package registers?"""
    assert {name for name in TARGETS if name.startswith("jbj_fast_kernels.")} == {
        f"jbj_fast_kernels.{name}" for name in jbj_fast_kernels.registrations()}


def test_every_handler_of_cpp_is_covered():
    """Does the test call every handler cpp/ defines?"""
    defined = {(path.name, symbol) for path in (ROOT / "cpp").glob("*.cc")
               for symbol in re.findall(r"XLA_FFI_DEFINE_HANDLER_SYMBOL\((\w+),", path.read_text())}
    covered = {(LIBRARIES[spec["library"]]["source"], spec["symbol"]) for spec in TARGETS.values()
               if LIBRARIES[spec["library"]]["kind"] == "file"}
    assert defined == covered


@pytest.fixture(scope="module")
def rms_norm_fwd():
    """Chapter 11's rms_norm_fwd, registered in this process under a test name: x, eps -> (y, s)."""
    build("ffi_rms_norm.cc").register_ffi_target("bad_buffers.eps.rms_norm_fwd", "RmsNormFwd")

    def call(x, eps):
        scale = np.float64 if x.dtype == np.float64 else np.float32
        results = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape[:-1], scale))
        return jax.ffi.ffi_call("bad_buffers.eps.rms_norm_fwd", results)(x, eps=np.float64(eps))
    return call


@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-15), ("float32", 1e-6)])
def test_eps_is_added_in_the_precision_of_the_data(rms_norm_fwd, dtype, rtol):
    """Does the float64 path add eps = 0.1 in float64 (float32's 0.1 is off by 1.5e-9), and the float32 path
    still in float32? Rows of small values make the scale s = 1 / sqrt(mean(x^2) + eps) hang on eps."""
    x = np.random.default_rng(0).uniform(-1e-3, 1e-3, (3, 16))
    with jax.enable_x64(True):
        y, s = jax.jit(lambda v: rms_norm_fwd(v, 0.1))(jnp.asarray(x, dtype))
    assert y.dtype == dtype
    x = x.astype(dtype).astype(np.float64)
    expected = 1 / np.sqrt(np.mean(x * x, axis=-1) + 0.1)
    np.testing.assert_allclose(np.asarray(s, np.float64), expected, rtol=rtol, atol=0)
    if dtype == "float64":   # eps rounded to float32 would be caught here
        assert np.max(np.abs(1 / np.sqrt(np.mean(x * x, axis=-1) + np.float64(np.float32(0.1))) / expected - 1)) > 1e-9


@pytest.fixture(scope="module")
def row_moments():
    """Chapter 04's ctypes row moments: row_moments(x) -> (mean, var) of each row of a 2-D float32 array."""
    f32 = np.ctypeslib.ndpointer(dtype=np.float32, flags="C_CONTIGUOUS")
    fn = build("pure_callback_kernels.cc").function(
        "pcb_row_moments_f32", argtypes=[f32, ctypes.c_int64, ctypes.c_int64, f32, f32], restype=None)

    def call(x):
        rows, n = x.shape
        mean, var = np.full(rows, 7.0, np.float32), np.full(rows, 7.0, np.float32)   # 7: not written yet
        fn(np.ascontiguousarray(x, np.float32), rows, n, mean, var)
        return mean, var
    return call


def test_row_moments_of_empty_rows_are_nan_like_numpys(row_moments):
    """Do rows of length 0 give NaN for mean and variance, as NumPy's mean and var of an empty row do,
    without a division by zero; and do other rows still match NumPy?"""
    empty = np.zeros((3, 0), np.float32)
    mean, var = row_moments(empty)
    assert np.isnan(mean).all() and np.isnan(var).all()
    with warnings.catch_warnings(record=True):   # NumPy warns "Mean of empty slice"
        warnings.simplefilter("always")
        assert np.isnan(np.mean(empty, axis=-1)).all() and np.isnan(np.var(empty, axis=-1)).all()
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    mean, var = row_moments(x)
    np.testing.assert_allclose(mean, x.mean(-1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, x.var(-1), rtol=1e-5, atol=1e-6)


def test_row_moments_of_no_rows_write_nothing(row_moments):
    """Does a (0, n) matrix, empty rows or not, leave the (empty) outputs alone and not crash?"""
    for shape in [(0, 5), (0, 0)]:
        mean, var = row_moments(np.zeros(shape, np.float32))
        assert mean.shape == var.shape == (0,)


def test_row_moments_of_empty_rows_do_not_divide_by_zero():
    """With floating-point traps on (0/0 then stops the process with SIGFPE), do empty rows still give NaN?
    That is, is NaN set, not computed as 0 / 0?"""
    script = textwrap.dedent("""
        import ctypes, numpy as np
        from grader.builder import build
        f32 = np.ctypeslib.ndpointer(dtype=np.float32, flags="C_CONTIGUOUS")
        fn = build("pure_callback_kernels.cc").function(
            "pcb_row_moments_f32", argtypes=[f32, ctypes.c_int64, ctypes.c_int64, f32, f32], restype=None)
        mean, var = np.zeros(3, np.float32), np.zeros(3, np.float32)
        libm = ctypes.CDLL("libm.so.6")
        # FE_INVALID | FE_DIVBYZERO, as glibc numbers them on x86; -1 where traps are not supported.
        if libm.feenableexcept(0x01 | 0x04) == -1:
            print("no traps")
        else:
            fn(np.zeros((3, 0), np.float32), 3, 0, mean, var)
            print(np.isnan(mean).all() and np.isnan(var).all())
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, f"the process ended with {proc.returncode}, {proc.stderr[-1500:]}"
    if proc.stdout.strip() == "no traps":
        pytest.skip("this CPU or C library cannot trap floating-point exceptions")
    assert proc.stdout.strip() == "True"
