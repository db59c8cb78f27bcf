"""Self-checks of chapter 11, "Run C++ inside compiled JAX with the XLA FFI": what each exercise's self-check cell
runs (see `grader.selfchecks`).

Besides the values an answer gives, the checks watch how it gives them:

- which custom calls a jitted program makes (an FFI target, or the Python callback of `jax.pure_callback`), read
  from its lowered text;
- whether a result is what a handler computed: `poisoned` compiles the function again with every `ffi_call` in it
  replaced by the constant `POISON` (no handler runs), and each result must become that constant;
- whether a kernel writes every element of its result: `into_nan` runs the function with its result placed, by
  donation, in memory that holds NaN, so that an element the kernel skips stays NaN;
- whether calls that run at the same time stay apart: `long_and_short_calls` makes short calls, one after
  another, for the whole time one long call runs in another thread, and `held_call` holds a call in the middle of
  its rows (the second half of its input unreadable, `cpp/page_stall.cc`) until a call from another thread has run
  whole, so that two calls overlap on every try;
- whether a handler computes from the input it is given: `in_place_calls` changes x's values in place between
  calls, so that new values sit at the address an earlier call saw;
- whether a handler writes variables every call shares: `globals_written` finds the library that holds the handler
  (XLA's table of targets gives its address) and compares the bytes of its global and static variables before and
  after calls on new values. A compiler may keep such a variable in a register, so that calls at once still give
  their own results on this machine: the write shows it all the same.
"""

from __future__ import annotations

import collections
import ctypes
import mmap
import os
import re
import subprocess
import threading
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import ffi as _ffi
from jax._src.interpreters import mlir as _mlir

from grader.notebook import checks
from grader.notebook.build import build
from grader.selfchecks import primitive_names

# ---- helpers shared by the exercises -------------------------------------------------------------------------

CALLBACK = "xla_ffi_python_cpu_callback"  # the custom call that runs a jax.pure_callback's Python function

#: What `poisoned` puts in place of each FFI call's results.
POISON = -1234.5


def run(what: str, thunk, hint: str | None = None):
    """thunk()'s result, waited for; or None after a failed check saying what it raised."""
    return checks.runs(lambda: jax.block_until_ready(thunk()), what=what, hint=hint)


def custom_call_lines(fn, *args) -> list[str]:
    """The lines of jax.jit(fn)'s lowered program that hold a stablehlo.custom_call."""
    return [line.strip() for line in jax.jit(fn).lower(*args).as_text().splitlines() if "stablehlo.custom_call" in line]


def custom_call_targets(fn, *args) -> list[str]:
    """The targets of the custom calls in jax.jit(fn)'s lowered program, in order."""
    return [re.search(r'stablehlo\.custom_call @"?([^"(\s]+)', line).group(1) for line in custom_call_lines(fn, *args)]


def poisoned(fn, *args):
    """jax.jit(fn)(*args), compiled with every ffi_call replaced by POISON for each of its results: the handlers do
    not run. A result computed by a handler comes back as POISON; one computed another way keeps its value.

    The lowering rule of ffi_call is swapped for the call only, with JAX's caches emptied before and after (so that
    nothing compiled with it stays in a cache), as chapter 07 counts a rule's runs."""
    prim = _ffi.ffi_call_p
    saved = _mlir._lowerings[prim]

    def poison(ctx, *operands, **params):
        return [_mlir.full_like_aval(ctx, POISON, aval) for aval in ctx.avals_out]

    _mlir._lowerings[prim] = type(saved)(poison, saved.inline)
    try:
        jax.clear_caches()
        return jax.block_until_ready(jax.jit(fn)(*args))
    finally:
        _mlir._lowerings[prim] = saved
        jax.clear_caches()


def all_poison(results) -> list[bool] | None:
    """For each array of `results` (one array, or a tuple of them): whether every element is POISON."""
    if results is None:
        return None
    arrays = results if isinstance(results, (tuple, list)) else (results,)
    return [bool(np.all(np.asarray(a, np.float64) == POISON)) for a in arrays]


def into_nan(fn, *args):
    """jax.jit(fn)(*args) with its result placed in memory that held NaN: a NaN array of the result's shape is
    donated to the call (an argument fn ignores), so that XLA writes the result into it. An element the program
    does not write stays NaN."""
    out = jax.eval_shape(fn, *args)
    spare = jnp.full(out.shape, jnp.nan, out.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "donated buffers were not usable": the check then only reads values
        call = jax.jit(lambda spare_buffer, *a: fn(*a), donate_argnums=0, keep_unused=True)
        return jax.block_until_ready(call(spare, *args))


def lo_hi(pair):
    """The pair (lo, hi) as one array, lo first (None when it is not a pair of arrays)."""
    try:
        return np.stack([np.asarray(pair[0]), np.asarray(pair[1])])
    except Exception:
        return None


def raised_type(thunk) -> str:
    """The name of the exception thunk() raises ("TypeError" for any subclass of it), or "no error"."""
    try:
        jax.block_until_ready(thunk())
    except TypeError:
        return "TypeError"
    except Exception as err:
        if checks.is_stub(err):
            raise
        return type(err).__name__
    return "no error"


# ---- Exercise 1 ----------------------------------------------------------------------------------------------

ANY_RANK = "every axis but the last is a row axis: bind ffi::Buffer<ffi::F32> (any rank), not a BufferR2"
SHARED_STATE = ("keep every per-row value in local variables or the result buffers: a static or global buffer is "
                "shared by calls that run at the same time")
REMEMBERED = ("compute from the x of each call and keep nothing between calls: XLA reuses memory, so new values can "
              "sit at the address an earlier x had (here x is updated in place between calls)")
NO_ROWS = ("an x with no rows gives empty lo and hi: XLA never calls a handler whose results are empty, so refuse empty "
           "rows in C++ only (a Python check, or has_side_effect=True, refuses a (0, 0) x)")


def custom_calls(fn, *args) -> list[tuple[str, str]]:
    """Each custom call of jax.jit(fn)'s program: what it calls (a Python callback or an FFI target) and its
    result types."""
    return [("Python callback" if CALLBACK in line else "FFI target", line.rsplit("-> ", 1)[-1])
            for line in custom_call_lines(fn, *args)]


def long_and_short_calls(row_minmax, rows: int = 1 << 20, n: int = 32, short_rows: int = 64, attempts: int = 3):
    """One long call of jax.jit(row_minmax), in a thread of its own, and short calls on inputs of other values in
    this thread, one after another, for as long as the long one runs (again, up to `attempts` times, until at
    least three short calls ended while it ran). Returns [whether the long call gave its own input's lo and hi, how
    many short calls did not give theirs].

    The long input's row r holds r % 1000 + 0, 1, ..., n - 1; the short ones hold negative values."""
    fn = jax.jit(row_minmax)
    base = (np.arange(rows, dtype=np.float32) % 1000)[:, None]
    big = jnp.asarray(base + np.arange(n, dtype=np.float32)[None, :])
    want_lo, want_hi = base[:, 0], base[:, 0] + (n - 1)
    shorts = [-1.0 - np.abs(np.random.default_rng(20 + k).standard_normal((short_rows, n))).astype(np.float32) * (k + 1)
              for k in range(4)]
    short_inputs = [jnp.asarray(s) for s in shorts]
    jax.block_until_ready(fn(big))               # compile for both shapes first
    jax.block_until_ready(fn(short_inputs[0]))
    long_ok, short_wrong = False, 0
    for _ in range(attempts):
        done, result = threading.Event(), {}

        def long_call():
            try:
                result["pair"] = jax.block_until_ready(fn(big))
            except Exception as err:  # reported as a wrong long call
                result["error"] = err
            finally:
                done.set()

        worker = threading.Thread(target=long_call)
        worker.start()
        during, k = 0, 0
        while not done.is_set():
            got = lo_hi(jax.block_until_ready(fn(short_inputs[k % 4])))
            short_wrong += not (got is not None and np.array_equal(got[0], shorts[k % 4].min(-1))
                                and np.array_equal(got[1], shorts[k % 4].max(-1)))
            during += not done.is_set()
            k += 1
        worker.join()
        got = lo_hi(result.get("pair"))
        long_ok = got is not None and np.array_equal(got[0], want_lo) and np.array_equal(got[1], want_hi)
        if not long_ok or short_wrong or during >= 3:
            break
    return [bool(long_ok), int(short_wrong)]


_STALL: dict = {}


def _page_stall() -> dict:
    """The functions of cpp/page_stall.cc, built and loaded once."""
    if not _STALL:
        lib = build("page_stall.cc", flags=("-O2",))
        for name, argtypes, restype in (("stall_on_touch", [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int], ctypes.c_int),
                                        ("stalled", [], ctypes.c_int), ("release_stall", [], None), ("unguard", [], None),
                                        ("watch_readers", [ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_long),
                                                           ctypes.c_int64, ctypes.c_int], ctypes.c_int),
                                        ("calls_returned", [], None), ("reader_of", [ctypes.c_int64], ctypes.c_long)):
            _STALL[name] = lib.function(name, argtypes=argtypes, restype=restype)
    return _STALL


#: Memory the reads of which are watched, one region per size, kept for the process: a thread an answer left
#: running may still read it after the check. And the last results of watched calls, which such a thread may write.
_WATCHED_MEMORY: dict[int, mmap.mmap] = {}
_WATCHED_RESULTS: collections.deque = collections.deque(maxlen=8)


def watched_reads(fn, shape: tuple[int, ...], seed: int = 16, hold_s: float = 1.0) -> dict[str, int]:
    """Which threads read x, and when, in one call fn(x): x is float32 in page-aligned memory that jax.device_put
    shares, every page of it unreadable, so that each page's first read faults and `cpp/page_stall.cc` writes down
    the reading thread. A thread that was not running before the call is held at its first read until the call has
    returned (or for hold_s): a handler that joins its threads only waits, one that returns before its threads are
    done leaves pages unread when it returns, on every call. Returns how many pages x has, how many threads read them
    first, how many pages a thread started during the call read first, and how many no thread had read when the call
    returned."""
    stall = _page_stall()
    size = int(np.prod(shape)) * 4
    memory = _WATCHED_MEMORY.setdefault(size, mmap.mmap(-1, size))
    x = np.frombuffer(memory, np.float32).reshape(shape)
    x[...] = np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)
    shared = jax.device_put(x)
    if shared.unsafe_buffer_pointer() != x.ctypes.data:
        raise RuntimeError("the check's x was copied by jax.device_put, so its reads cannot be watched")
    _WATCHED_RESULTS.append(jax.block_until_ready(fn(shared)))   # compiled, and XLA's threads started
    before = np.array(sorted(int(tid) for tid in os.listdir("/proc/self/task")), dtype=ctypes.c_long)
    pages = size // mmap.PAGESIZE
    if stall["watch_readers"](x.ctypes.data, size, before.ctypes.data_as(ctypes.POINTER(ctypes.c_long)), len(before),
                              int(hold_s * 1e6)) != 0:
        raise RuntimeError("the check could not make x unreadable (cpp/page_stall.cc)")
    try:
        _WATCHED_RESULTS.append(jax.block_until_ready(fn(shared)))
    finally:
        readers = [stall["reader_of"](page) for page in range(pages)]   # as the call returned
        stall["calls_returned"]()
        stall["unguard"]()
    known = set(before.tolist())
    return {"pages": pages, "threads": len(set(readers) - {0}),
            "started during the call": sum(1 for tid in readers if tid and tid not in known),
            "unread when the call returned": readers.count(0)}


def held_call(row_minmax, rows: int = 2048, n: int = 256, limit_s: float = 3.0) -> dict:
    """A jitted call on x held in the middle of its rows while a call on another input runs whole, from another
    thread: x lies in page-aligned memory that jax.device_put shares, its second half unreadable until the other call
    has returned (the handler's first read there waits, `cpp/page_stall.cc`). Returns whether each call gave its own
    input's lo and hi, and whether the first was held (False only if its handler never read x's second half: the
    memory was not shared, or no call read it)."""
    stall = _page_stall()
    fn = jax.jit(row_minmax)
    memory = mmap.mmap(-1, rows * n * 4)
    held_x = np.frombuffer(memory, np.float32).reshape(rows, n)
    held_x[:] = np.random.default_rng(60).standard_normal((rows, n)).astype(np.float32)
    other_x = np.random.default_rng(61).standard_normal((rows, n)).astype(np.float32) * 4 + 10
    held, other = jax.device_put(held_x), jnp.asarray(other_x)
    jax.block_until_ready(fn(other))   # compiled before the hold
    half = rows * n * 4 // 2           # a multiple of the page size
    if stall["stall_on_touch"](held_x.ctypes.data + half, half, int(limit_s * 1e6)) != 0:
        raise RuntimeError("the check could not make part of x unreadable (cpp/page_stall.cc)")
    result: dict = {}

    def first():
        try:
            result["pair"] = jax.block_until_ready(fn(held))
        except Exception as err:  # reported as a wrong call
            result["error"] = err

    worker = threading.Thread(target=first)
    try:
        worker.start()
        until = time.monotonic() + limit_s
        while not stall["stalled"]() and time.monotonic() < until and worker.is_alive():
            time.sleep(0.001)
        was_held = bool(stall["stalled"]())
        second = lo_hi(jax.block_until_ready(fn(other)))
    finally:
        stall["release_stall"]()
        worker.join()
        stall["unguard"]()
    del held

    def own(pair, x):
        return pair is not None and np.array_equal(pair[0], x.min(-1)) and np.array_equal(pair[1], x.max(-1))

    return {"held call right": own(lo_hi(result.get("pair")), held_x), "other call right": own(second, other_x),
            "held": was_held}


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def _library_of(target: str) -> tuple[str, int]:
    """The file and load address of the library that holds the handler XLA runs for the CPU FFI target `target`."""
    from jaxlib import xla_client

    capsule = xla_client.custom_call_targets("cpu")[target]["execute"]
    pointer = ctypes.pythonapi.PyCapsule_GetPointer
    pointer.restype, pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    info = _DlInfo()
    if not ctypes.CDLL(None).dladdr(ctypes.c_void_p(pointer(capsule, None)), ctypes.byref(info)):
        raise RuntimeError(f"no loaded library holds the handler of the FFI target {target!r}")
    return info.dli_fname.decode(), info.dli_fbase


def _writable_variables(path: str, base: int) -> list[tuple[str, int, int]]:
    """(name, address, size) of each variable of the library `path`, loaded at `base`, that lies in its writable
    memory: its global and static variables (not thread_local ones, which each thread has apart)."""
    spans, path = [], os.path.realpath(path)
    for line in open("/proc/self/maps"):
        fields = line.split(maxsplit=5)
        lo, hi = (int(v, 16) for v in fields[0].split("-"))
        named = os.path.realpath(fields[5].strip()) if len(fields) > 5 else ""
        if fields[1].startswith("rw") and (named == path or (not named and spans and lo == spans[-1][1])):
            spans.append((lo, hi))   # the library's own writable pages, and the zeroed ones right after them
    listed = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    found = []
    for line in listed.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "bBdD" and int(fields[1], 16):
            address, size = base + int(fields[0], 16), int(fields[1], 16)
            if any(lo <= address and address + size <= hi for lo, hi in spans):
                found.append((fields[3], address, size))
    return found


def globals_written(fn, x) -> list[str]:
    """The global and static variables of the library holding the handler that jax.jit(fn) calls whose bytes changed
    over 3 calls on new values of x's shape, after a first call (which may set up what it needs once): state that
    calls running at the same time share. Sorted, by their C++ names."""
    jitted = jax.jit(fn)
    target, = set(custom_call_targets(fn, x))
    variables = _writable_variables(*_library_of(target))
    jax.block_until_ready(jitted(x))
    before = [ctypes.string_at(address, size) for _, address, size in variables]
    for k in range(3):
        jax.block_until_ready(jitted(x * (k + 2) - 5))
    names = [name for (name, address, size), was in zip(variables, before) if ctypes.string_at(address, size) != was]
    shown = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return sorted(shown if len(shown) == len(names) else names)


def in_place_calls(row_minmax, steps: int = 4, shape=(4, 6)) -> list[int]:
    """An eager and a jitted call of row_minmax, then x updated in place, `steps` times: a jax.jit(lambda a: a + 1)
    that donates x writes a + 1 into x's own memory, so every call after the first finds new values at the address
    an earlier call saw. Returns [how many calls did not give their input's lo and hi, how many updates moved x
    (0: each one wrote into x's memory)]."""
    base = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) % 7 - 3
    bump = jax.jit(lambda a: a + 1.0, donate_argnums=0)
    fn = jax.jit(row_minmax)
    x = jnp.asarray(base) + 0.0        # in XLA's own memory; no NumPy view of x is kept: donation needs x to itself
    wrong = moved = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "donated buffers were not usable": then `moved` says so
        for k in range(steps):
            for call in (row_minmax, fn):
                got = lo_hi(jax.block_until_ready(call(x)))
                wrong += not (got is not None and np.array_equal(got, np.stack([base.min(-1) + k, base.max(-1) + k])))
            address = x.unsafe_buffer_pointer()
            x = jax.block_until_ready(bump(x))
            moved += x.unsafe_buffer_pointer() != address
    return [int(wrong), int(moved)]


def concurrent_calls_wrong(row_minmax, threads: int = 4, calls: int = 25, shape=(2048, 256)) -> int:
    """How many of `calls` jitted calls in each of `threads` Python threads, started together and each on an input
    of its own, gave results other than their own input's row minima and maxima."""
    inputs = [np.random.default_rng(100 + t).standard_normal(shape).astype(np.float32) * (t + 1) for t in range(threads)]
    fn = jax.jit(row_minmax)
    jax.block_until_ready(fn(jnp.asarray(inputs[0])))
    wrong, start = [0] * threads, threading.Barrier(threads)

    def work(t):
        a = jnp.asarray(inputs[t])
        start.wait()
        for _ in range(calls):
            got = lo_hi(fn(a))
            wrong[t] += not (got is not None and np.array_equal(got[0], inputs[t].min(-1))
                             and np.array_equal(got[1], inputs[t].max(-1)))

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sum(wrong)


def exercise1(row_minmax) -> None:
    """row_minmax returns each row's min and max, computed by one C++ handler, for any rank and any values, under jit
    and vmap and from several threads at once; it only reads x, and the handler refuses empty rows."""
    m = jnp.array([[3.0, -1.0, 2.0], [0.5, 0.5, 4.0]])
    got = run("jax.jit(row_minmax)([[3, -1, 2], [0.5, 0.5, 4]])", lambda: jax.jit(row_minmax)(m))
    checks.equal([isinstance(got, tuple), len(got) if isinstance(got, tuple) else None], [True, 2],
                 what="whether row_minmax returns a tuple (lo, hi): [a tuple, its length]",
                 hint="return the pair as a tuple, (lo, hi), not a list or one stacked array")
    pair = got if isinstance(got, tuple) and len(got) == 2 else (None, None)
    checks.close(pair[0], np.array([-1.0, 0.5], np.float32), what="lo of [[3, -1, 2], [0.5, 0.5, 4]]")
    checks.close(pair[1], np.array([3.0, 4.0], np.float32), what="hi of [[3, -1, 2], [0.5, 0.5, 4]]")
    before = [[3.0, -1.0, 2.0], [0.5, 0.5, 4.0]]
    run("row_minmax(x) eagerly", lambda: row_minmax(m))
    kept = run("jax.jit(lambda a: (row_minmax(a), a + 0))", lambda: jax.jit(lambda a: (row_minmax(a), a + 0))(m)[1])
    checks.equal([np.asarray(m).tolist(), None if kept is None else np.asarray(kept).tolist()], [before, before],
                 what="x after an eager call, and a + 0 computed next to row_minmax(a) under jit: [x, a + 0]",
                 hint="the handler reads x and writes only lo and hi: sorting a row of x in place changes the caller's array")
    one = run("row_minmax of the 1-D array [2, -7, 5]", lambda: row_minmax(jnp.array([2.0, -7.0, 5.0])),
              hint="a 1-D x is one row: bind ffi::Buffer<ffi::F32> (any rank), not a BufferR2")
    checks.close(one[0] if one is not None else None, np.float32(-7.0), what="lo of the 1-D array [2, -7, 5]",
                 hint="a 1-D x is one row: lo and hi have shape x.shape[:-1] == ()")
    t = np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 5
    cube = run("row_minmax of a (2, 3, 4) array", lambda: row_minmax(jnp.asarray(t)), hint=ANY_RANK)
    checks.close(cube[1] if cube is not None else None, t.max(-1), what="hi of a (2, 3, 4) array (shape (2, 3))",
                 hint="lo and hi have shape x.shape[:-1]; the handler has x.element_count() / n rows")
    batched = run("vmap(row_minmax, in_axes=1) of a (2, 3, 4) array", lambda: jax.vmap(row_minmax, in_axes=1)(jnp.asarray(t)),
                  hint='ffi_call needs a vmap_method, e.g. vmap_method="broadcast_all"')
    checks.close(batched[1] if batched is not None else None, np.moveaxis(t, 1, 0).max(-1),
                 what="hi under vmap(row_minmax, in_axes=1) of a (2, 3, 4) array")
    huge = np.array([[3e38, 1e38, 2e38], [-3e38, -np.inf, -1e38], [np.inf] * 3, [-np.inf] * 3], np.float32)
    checks.close(lo_hi(run("jax.jit(row_minmax) of huge values and infinities", lambda: jax.jit(row_minmax)(jnp.asarray(huge)))),
                 np.stack([huge.min(-1), huge.max(-1)]),
                 what="[lo, hi] of [[3e38, 1e38, 2e38], [-3e38, -inf, -1e38], [inf, inf, inf], [-inf, -inf, -inf]]",
                 hint="start each row's min and max at its first value, not at 0 or at a 'large' constant")
    checks.equal(run("jax.jit(row_minmax).lower(...)", lambda: custom_calls(row_minmax, m)),
                 [("FFI target", "(tensor<2xf32>, tensor<2xf32>)")],
                 what="the custom calls of jax.jit(row_minmax) (what each calls, its result types): one FFI call giving lo and hi",
                 hint="one jax.ffi.ffi_call with a tuple of two ShapeDtypeStructs")
    checks.equal(all_poison(run("row_minmax compiled with its FFI call's results replaced by -1234.5",
                                lambda: poisoned(row_minmax, m))), [True, True],
                 what="whether lo and hi become -1234.5 when the FFI call's results are replaced by -1234.5 "
                      "(they must be the handler's results)",
                 hint="return the two results of the ffi_call as they are: not values computed again with jnp")
    checks.raises(jax.errors.JaxRuntimeError, lambda: jax.block_until_ready(row_minmax(jnp.zeros((2, 0), jnp.float32))),
                  what="row_minmax of a (2, 0) array", match="rows must not be empty",
                  hint='return ffi::Error::InvalidArgument("... rows must not be empty") from the handler')
    run("jax.jit(row_minmax).lower(a (2, 0) array) (the handler refuses when it runs, not before)",
        lambda: jax.jit(row_minmax).lower(jnp.zeros((2, 0), jnp.float32)).as_text(),
        hint="refuse empty rows in the C++ handler, with ffi::Error::InvalidArgument, not in Python before the call")
    none = run("row_minmax of a (0, 4) and a (0, 0) array (no rows)",
               lambda: [row_minmax(jnp.zeros(shape, jnp.float32)) for shape in ((0, 4), (0, 0))], hint=NO_ROWS)
    checks.equal(None if none is None else [[tuple(np.shape(a)) for a in pair] for pair in none], [[(0,), (0,)], [(0,), (0,)]],
                 what="the shapes of lo and hi for a (0, 4) and a (0, 0) array (no rows): [[lo, hi], [lo, hi]]", hint=NO_ROWS)
    checks.equal(run("a long call of row_minmax in one thread with short ones in another", lambda: long_and_short_calls(row_minmax),
                     hint=SHARED_STATE), [True, 0],
                 what="one long call (1M rows) while short calls ran in another thread: [whether the long call gave its own "
                      "lo and hi, how many short calls did not]", hint=SHARED_STATE)
    both = run("a call of row_minmax held in the middle of its rows while another thread's call runs",
               lambda: held_call(row_minmax), hint=SHARED_STATE)
    checks.equal(None if both is None else [both["held call right"], both["other call right"]], [True, True],
                 what="a jitted call on a (2048, 256) x held at its first read of x's second half until a call on "
                      "another x, from another thread, had run whole: [whether the held call gave its own lo and hi, "
                      "whether the other did]", hint=SHARED_STATE)
    seen = run("a call of jax.jit(row_minmax) on a (524288, 32) x, the threads that read x watched",
               lambda: watched_reads(jax.jit(row_minmax), (1 << 19, 32)), hint=SHARED_STATE)
    checks.equal(None if seen is None else seen["unread when the call returned"], 0,
                 what="how many pages of a (524288, 32) x no thread had read when jax.jit(row_minmax) returned (a thread "
                      "the handler starts is held at its first read of x until the call has returned)",
                 hint="the handler reads x and writes every row before it returns, on every call: join any thread of "
                      "your own before returning, and keep no result from an earlier call")
    checks.equal(run("calls of jax.jit(row_minmax), the handler's library watched", lambda: globals_written(row_minmax, m),
                     hint=SHARED_STATE), [],
                 what="the global or static variables of the handler's library that calls on new values wrote to "
                      "(every call shares them)", hint=SHARED_STATE)
    checks.equal(run("row_minmax on an x whose values change in place between calls", lambda: in_place_calls(row_minmax),
                     hint=REMEMBERED), [0, 0],
                 what="4 eager and 4 jitted calls on a (4, 6) x that a donating jit(lambda a: a + 1) updates in place between "
                      "them: [how many calls did not give their input's lo and hi, how many updates moved x]", hint=REMEMBERED)
    checks.raises(jax.errors.JaxRuntimeError, lambda: jax.block_until_ready(row_minmax(jnp.zeros((3, 0), jnp.float32))),
                  what="row_minmax of a (3, 0) array: the kind of error the handler returns", match="INVALID_ARGUMENT",
                  hint="return ffi::Error::InvalidArgument(...): the input is at fault, not the handler (Internal)")


# ---- Exercise 2 ----------------------------------------------------------------------------------------------

def silu_vjp(silu, v, c):
    """The cotangent of x that jax.vjp(silu, v) gives for the cotangent c of its result."""
    return jax.vjp(silu, v)[1](c)[0]


def pullbacks_in_turn(silu, first, second):
    """Both forward passes of jax.vjp (at first, then at second) run before either pullback is called (for ȳ = 1)."""
    pull_first, pull_second = jax.vjp(silu, first)[1], jax.vjp(silu, second)[1]
    return pull_first(jnp.ones_like(first))[0], pull_second(jnp.ones_like(second))[0]


def silu_reference(x):
    return np.asarray(jax.nn.silu(jnp.asarray(x)))


def silu_grad_reference(x):
    return np.asarray(jax.vmap(jax.grad(jax.nn.silu))(jnp.ravel(jnp.asarray(x)))).reshape(np.shape(x))


STALE = "write every element of the result, where ȳ (or x) is 0 too: a result buffer can hold what was there before (here NaN)"


def exercise2(silu_ffi) -> None:
    """silu_ffi computes SiLU with one C++ kernel and its gradient with a second one that receives ȳ; right at extreme x,
    0-d, under jit, vmap and jacrev; each kernel writes every element of its result."""
    xs = jnp.linspace(-6.0, 6.0, 13)
    checks.close(run("jax.jit(silu_ffi) on linspace(-6, 6, 13)", lambda: jax.jit(silu_ffi)(xs)), silu_reference(xs),
                 what="jit(silu_ffi) on linspace(-6, 6, 13)")
    checks.close(run("the gradient of sum(silu_ffi(x))", lambda: jax.jit(jax.grad(lambda v: silu_ffi(v).sum()))(xs)),
                 silu_grad_reference(xs), what="the gradient of sum(silu_ffi(x)) on linspace(-6, 6, 13)", rtol=1e-5, atol=1e-6,
                 hint="the derivative of x·σ(x) is σ(x)·(1 + x·(1 − σ(x))): use the product rule")
    targets = run("jax.jit(jax.value_and_grad(...)).lower", lambda: custom_call_targets(jax.value_and_grad(lambda v: silu_ffi(v).sum()), xs)) or []
    checks.equal(targets.count(CALLBACK), 0, what="how many Python callbacks value_and_grad of silu_ffi makes")
    checks.equal(min(len(set(targets) - {CALLBACK}), 2), 2,
                 what="how many different FFI targets value_and_grad of silu_ffi calls, counted up to 2 (forward and backward kernels)",
                 hint="the backward function of the custom_vjp calls the second kernel with jax.ffi.ffi_call")
    ybar = jnp.asarray(np.random.default_rng(7).standard_normal(13), jnp.float32)
    checks.close(run("jax.vjp(silu_ffi, x)[1](ȳ) under jit", lambda: jax.jit(lambda v, c: silu_vjp(silu_ffi, v, c))(xs, ybar)),
                 np.asarray(jax.vjp(jax.nn.silu, xs)[1](ybar)[0]),
                 what="jit of jax.vjp(silu_ffi, x)[1](ȳ) for a ȳ that is not all ones", rtol=1e-5, atol=1e-6,
                 hint="the backward kernel multiplies the derivative by the incoming cotangent ȳ, elementwise")
    first, second = jnp.array([1.0, -2.0, 0.5, 4.0]), jnp.array([-3.0, 0.25, 2.0, -0.5])
    checks.close(run("the pullbacks of jax.vjp(silu_ffi, x1) and jax.vjp(silu_ffi, x2), called after both forward passes",
                     lambda: pullbacks_in_turn(silu_ffi, first, second)),
                 (np.asarray(jax.grad(lambda v: jax.nn.silu(v).sum())(first)),
                  np.asarray(jax.grad(lambda v: jax.nn.silu(v).sum())(second))), rtol=1e-5, atol=1e-6,
                 what="the cotangents of x1 and of x2 for ȳ = 1, from pullbacks called only after both forward passes ran",
                 hint="the backward kernel computes from the residual it is given and ȳ: keep nothing of a forward call "
                      "in the kernels (a later call replaces it)")
    with_zeros = jnp.array([0.0, 1.0, 0.0, -2.0, 0.0, 0.5, 0.0, 3.0] * 64, jnp.float32)
    points = jnp.linspace(-3.0, 3.0, with_zeros.size, dtype=jnp.float32)
    want = np.asarray(jax.vjp(jax.nn.silu, points)[1](with_zeros)[0])
    checks.close(run("silu_ffi written into memory that held NaN", lambda: into_nan(silu_ffi, with_zeros), STALE),
                 silu_reference(with_zeros), rtol=1e-5, atol=1e-6,
                 what="silu_ffi of an x that is 0 at every other point, computed into memory that held NaN", hint=STALE)
    checks.close(run("the VJP written into memory that held NaN", lambda: into_nan(lambda v, c: silu_vjp(silu_ffi, v, c), points, with_zeros), STALE),
                 want, rtol=1e-5, atol=1e-6,
                 what="the VJP of silu_ffi for a ȳ that is 0 at every other point, computed into memory that held NaN", hint=STALE)
    cols = xs[:12].reshape(3, 4)
    checks.close(run("vmap(grad(...), in_axes=1) over a (3, 4) array",
                     lambda: jax.vmap(jax.grad(lambda v: silu_ffi(v).sum()), in_axes=1)(cols),
                     hint="both ffi_calls, the forward's and the backward's, need a vmap_method"),
                 silu_grad_reference(xs[:12]).reshape(3, 4).T,
                 what="vmap(grad(...), in_axes=1) over a (3, 4) array", rtol=1e-5, atol=1e-6, hint="both ffi_calls need a vmap_method")
    checks.close(run("silu_ffi of the 0-d array 1.5", lambda: silu_ffi(jnp.float32(1.5)),
                     hint="a 0-d array is one element: x.element_count() is 1, with no dimensions"),
                 np.float32(jax.nn.silu(1.5)), what="silu_ffi of the 0-d array 1.5")
    checks.close(run("silu_ffi at x = -100 and 100", lambda: silu_ffi(jnp.array([-100.0, 100.0]))),
                 silu_reference([-100.0, 100.0]), what="silu_ffi at x = -100 and 100", rtol=1e-5, atol=1e-6,
                 hint="exp(100) is inf in float32: write σ(x) as 1 / (1 + exp(-x)), which stays finite")
    far, far_ct = jnp.array([-100.0, -30.0, 30.0, 100.0]), jnp.array([0.5, -2.0, 3.0, -1.0])
    checks.close(run("jax.vjp(silu_ffi, x)[1](ȳ) at large |x|", lambda: jax.jit(lambda v, c: silu_vjp(silu_ffi, v, c))(far, far_ct)),
                 np.asarray(jax.vjp(jax.nn.silu, far)[1](far_ct)[0]),
                 what="jit of jax.vjp(silu_ffi, x)[1](ȳ) at x = [-100, -30, 30, 100], ȳ = [0.5, -2, 3, -1]", rtol=1e-5, atol=1e-6,
                 hint="in the backward kernel too, use s = 1 / (1 + exp(-x)) and s·(1 + x·(1 − s)): "
                      "exp(-x) / (1 + exp(-x))² is inf/inf = nan at x = -100")
    forward_targets = run("jax.jit(silu_ffi).lower", lambda: custom_call_targets(silu_ffi, xs)) or []
    checks.equal(len(set(forward_targets) - {CALLBACK}) > 0, True,
                 what="whether jit(silu_ffi) alone (no gradient) calls an FFI target",
                 hint="silu_ffi's own body calls the forward kernel with jax.ffi.ffi_call, not jax.nn.silu")
    checks.equal(all_poison(run("silu_ffi compiled with its FFI calls' results replaced by -1234.5", lambda: poisoned(silu_ffi, xs))),
                 [True], what="whether silu_ffi(x) becomes -1234.5 when every FFI call's results are replaced by -1234.5 "
                              "(it must be the forward kernel's result)",
                 hint="return the forward kernel's result as it is, not jax.nn.silu or a value computed again with jnp")
    vjp_text = run("jax.jit(jax.vjp(silu_ffi, x)[1]).lower",
                   lambda: jax.jit(lambda v, c: silu_vjp(silu_ffi, v, c)).lower(xs, ybar).as_text()) or ""
    operands = [len([a for a in args.split(",") if a.strip()]) for args in
                re.findall(r'stablehlo\.custom_call @"?[^"(\s]+"?\(([^)]*)\)', vjp_text)]
    checks.equal(max(operands, default=0) >= 2, True,
                 what="whether a custom call of jax.vjp(silu_ffi, x)[1](ȳ) takes two operands (the backward kernel's x and ȳ)",
                 hint="pass ȳ to the backward kernel, which multiplies it in C++: not silu'(x) from C++ times ȳ in jnp")
    pullback = run("jax.vjp(silu_ffi, x)", lambda: jax.vjp(silu_ffi, xs)[1])
    ybar_zeros = ybar.at[::2].set(0.0)
    checks.equal(all_poison(run("the pullback of silu_ffi compiled with its FFI calls' results replaced by -1234.5",
                                lambda: poisoned(lambda c: pullback(c)[0], ybar_zeros))), [True],
                 what="whether the cotangent of x becomes -1234.5 when the backward's FFI calls return -1234.5, for a ȳ "
                      "that is 0 at every other point (it must be the backward kernel's result)",
                 hint="return the backward kernel's result as it is, in a tuple: not a gradient computed or patched "
                      "with jnp (where ȳ is 0 too)")
    edges = jnp.array([-20.0, -1e30, 2e7, 1e-3])
    checks.close(run("silu_ffi at [-20, -1e30, 2e7, 0.001]", lambda: silu_ffi(edges)), silu_reference(edges),
                 rtol=1e-4, atol=1e-30, what="silu_ffi at x = [-20, -1e30, 2e7, 0.001], to 4 significant digits (silu(-20) is -4.1e-8)",
                 hint="x·σ(x) with σ(x) = 1 / (1 + exp(-x)), unclamped: 1 - σ(-x) loses every digit for x < -17, "
                      "and a clamp of x keeps σ(-1e30) away from 0")
    checks.close(run("grad of silu_ffi at [-20, -1e30, 2e7, 0.001]", lambda: jax.vmap(jax.grad(silu_ffi))(edges)),
                 silu_grad_reference(edges), rtol=1e-4, atol=1e-30,
                 what="the gradient of silu_ffi at x = [-20, -1e30, 2e7, 0.001]",
                 hint="s·(1 + x·(1 - s)) with s = σ(x): expanded as s + x·s - x·s², the large terms cancel for x around 1e7")
    tiny = jnp.array([-30.0, -60.0, -87.0])
    checks.close(run("silu_ffi and its gradient at [-30, -60, -87]", lambda: jnp.stack([silu_ffi(tiny), jax.vmap(jax.grad(silu_ffi))(tiny)])),
                 np.stack([silu_reference(tiny), silu_grad_reference(tiny)]), rtol=1e-4, atol=1e-38,
                 what="[silu_ffi, its gradient] at x = [-30, -60, -87], to 4 significant digits (silu(-87) is about -1.4e-36, not 0)",
                 hint="no cut-off that returns 0 for very negative x: σ(x) = 1 / (1 + exp(-x)) stays a normal float32 down to x = -87")
    few = xs[4:8]
    checks.close(run("jax.jacrev(silu_ffi) at 4 points", lambda: jax.jacrev(silu_ffi)(few)), np.asarray(jax.jacrev(jax.nn.silu)(few)),
                 rtol=1e-5, atol=1e-6, what="jax.jacrev(silu_ffi) at 4 points (vmap over cotangents, x fixed)",
                 hint='under vmap over ȳ with x unbatched, vmap_method="broadcast_all" gives the kernel both at full size')
    vjp_jit = jax.jit(lambda v, c: silu_vjp(silu_ffi, v, c))
    for attempt in range(3):
        for _ in range(4):
            jax.block_until_ready(jnp.full(with_zeros.shape, jnp.nan, jnp.float32) * 1.0)   # freed: their memory holds NaN
        checks.close(run("the VJP of silu_ffi for a ȳ with zeros", lambda: vjp_jit(points, with_zeros), STALE), want,
                     rtol=1e-5, atol=1e-6, what=f"the VJP of silu_ffi for a ȳ that is 0 at every other point (try {attempt + 1})",
                     hint=STALE)


# ---- Exercise 3 ----------------------------------------------------------------------------------------------

def rms(a, eps):
    """RMSNorm over the last axis, in float64, rounded to float32."""
    a = np.asarray(a, np.float64)
    return (a / np.sqrt(np.mean(a ** 2, axis=-1, keepdims=True) + eps)).astype(np.float32)




def eager_route(prim, a, eps):
    """Whether the implementation of `prim` runs the primitive itself, so compiled through its lowering, and the
    primitives it runs besides (an ffi_call of its own among them: that one would not follow a change of the
    lowering)."""
    names = set(primitive_names(jax.make_jaxpr(lambda v: prim.impl(v, eps=np.float32(eps)))(a).jaxpr))
    return ("through its lowering" if prim.name in names else "not through its lowering",
            sorted(names - {prim.name, "jit", "pjit"}))


REFUSE = ("the abstract evaluation refuses them with TypeError (a float32 array with at least one axis: no other float "
          "dtype either, the kernel reads 4-byte floats), and the eager path reaches it: "
          "def_impl(partial(xla.apply_primitive, rms_norm_prim_p))")


def with_x64(thunk):
    """thunk() with 64-bit types on (jax.enable_x64), as a learner who needs float64 turns them on."""
    with jax.enable_x64(True):
        return thunk()


def exercise3(rms_norm_prim_p) -> None:
    """rms_norm_prim_p lowers to the rms_norm FFI target with eps as its attribute, runs eagerly through that lowering,
    refuses what the kernel cannot take with TypeError, and batches with the batch axis anywhere."""
    def norm(a, eps=1e-5):
        return rms_norm_prim_p.bind(a, eps=np.float32(eps))

    m = jnp.arange(1.0, 13.0).reshape(3, 4)
    checks.close(run("eager rms_norm_prim_p.bind on a (3, 4) array", lambda: norm(m)), rms(m, 1e-5),
                 what="eager rms_norm_prim_p.bind on a (3, 4) array")
    checks.close(run("jit with eps=0.5", lambda: jax.jit(lambda a: norm(a, 0.5))(m)), rms(m, 0.5), what="jit with eps=0.5",
                 hint="ffi_lowering passes the primitive's parameters to the handler as attributes")
    checks.close(run("eager bind with eps=2.0", lambda: norm(m, 2.0)), rms(m, 2.0), what="eager rms_norm_prim_p.bind with eps=2.0",
                 hint="the eager path must pass eps on too: def_impl(partial(xla.apply_primitive, rms_norm_prim_p)) runs the lowering")
    checks.equal(run("jax.make_jaxpr of rms_norm_prim_p.impl", lambda: eager_route(rms_norm_prim_p, m, 0.5)),
                 ("through its lowering", []),
                 what="how an eager call is computed: whether its implementation runs rms_norm_prim_p itself (compiled "
                      "through its lowering), and which other primitives it runs",
                 hint="the implementation should run the primitive through its lowering (xla.apply_primitive): not "
                      "recompute RMSNorm in jnp, nor make an ffi_call of its own, which a change of the lowering would miss")
    checks.equal(run("jax.jit(bind).lower", lambda: custom_call_targets(norm, m)), ["rms_norm"],
                 what="the custom-call targets of the jitted program (the FFI target rms_norm)",
                 hint='mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")')
    checks.close(run("eager bind on the 1-D array [3, 4]", lambda: norm(jnp.array([3.0, 4.0])),
                     hint="x may have any number of axes (at least one): the kernel normalises the last"),
                 rms(np.array([3.0, 4.0]), 1e-5), what="eager bind on the 1-D array [3, 4]")
    empty = run("eager bind on an empty (0, 4) array", lambda: norm(jnp.zeros((0, 4), jnp.float32)),
                hint="an empty x has axes: it is not refused (its result is empty too)")
    checks.equal(None if empty is None else [tuple(empty.shape), str(empty.dtype)], [(0, 4), "float32"],
                 what="eager bind on an empty (0, 4) array: [shape, dtype]", hint="an empty x has axes: it is not refused")
    c3 = np.arange(1.0, 25.0, dtype=np.float32).reshape(2, 3, 4) % 7 - 3
    checks.close(run("eager bind on a (2, 3, 4) array", lambda: norm(jnp.asarray(c3))), rms(c3, 1e-5),
                 what="eager bind on a (2, 3, 4) array")
    checks.close(run("vmap over the rows of a (3, 4) array", lambda: jax.vmap(norm)(m)), rms(m, 1e-5),
                 what="vmap over the rows of a (3, 4) array")
    checks.close(run("vmap(in_axes=1) over a (3, 4) array", lambda: jax.vmap(norm, in_axes=1)(m)), rms(np.asarray(m).T, 1e-5),
                 what="vmap(in_axes=1) over the columns of a (3, 4) array",
                 hint="with the batch on the last axis, the kernel would normalise across the examples")
    checks.close(run("vmap(in_axes=1) with eps=3.0", lambda: jax.vmap(lambda a: norm(a, 3.0), in_axes=1)(m)), rms(np.asarray(m).T, 3.0),
                 what="vmap(in_axes=1) with eps=3.0 over the columns of a (3, 4) array",
                 hint="the batching rule binds the primitive again with the eps it was given")
    checks.close(run("vmap(in_axes=2) of a (2, 3, 4) array", lambda: jax.vmap(norm, in_axes=2)(jnp.asarray(c3))),
                 rms(np.moveaxis(c3, 2, 0), 1e-5), what="vmap(in_axes=2) of a (2, 3, 4) array (4 examples of shape (2, 3))",
                 hint="the batch axis is the last axis whenever d == x.ndim - 1, whatever x.ndim is")
    refusals = {
        "eager bind on an int32 array": raised_type(lambda: norm(jnp.arange(4, dtype=jnp.int32))),
        "eval_shape on an int32 array": raised_type(lambda: jax.eval_shape(norm, jax.ShapeDtypeStruct((2, 3), jnp.int32))),
        "eval_shape on a float16 array": raised_type(lambda: jax.eval_shape(norm, jax.ShapeDtypeStruct((2, 3), jnp.float16))),
        "eval_shape on a 0-d float32": raised_type(lambda: jax.eval_shape(norm, jax.ShapeDtypeStruct((), jnp.float32))),
        "eval_shape on a float64 array (x64 on)": raised_type(lambda: with_x64(
            lambda: jax.eval_shape(norm, jax.ShapeDtypeStruct((2, 3), jnp.float64)))),
    }
    checks.equal(refusals, {label: "TypeError" for label in refusals},
                 what="the errors for an int32 x (eagerly and in eval_shape), a float16 x, a 0-d x and a float64 x with "
                      "jax.enable_x64(True) (in eval_shape)", hint=REFUSE)
    checks.equal(raised_type(lambda: jax.vmap(norm)(jnp.array([3.0, 4.0]))), "TypeError",
                 what="the error for vmap over the 1-D array [3, 4] (two examples with no axis)",
                 hint="each example is 0-d, which a bind alone refuses: the batching rule raises TypeError for a 1-D x, "
                      "where binding it as it is would normalise across the examples")
    batched_names = set(run("jax.make_jaxpr of vmap(in_axes=1)", lambda: primitive_names(jax.make_jaxpr(jax.vmap(norm, in_axes=1))(m).jaxpr)) or [])
    checks.equal(rms_norm_prim_p.name in batched_names and "ffi_call" not in batched_names, True,
                 what="whether the jaxpr of vmap(in_axes=1) binds rms_norm_prim again (and no ffi_call of its own)",
                 hint="the batching rule binds rms_norm_prim_p on the moved array: not the bare rms_norm_ffi of section 1")
