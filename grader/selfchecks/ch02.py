"""Self-checks of chapter 02, "Share memory between JAX, NumPy and C++ with DLPack": what each exercise's self-check cell runs."""

from __future__ import annotations

import contextlib
import ctypes
import gc

import jax
import jax.numpy as jnp
import numpy as np

from grader.memory import address
from grader.notebook import checks
from grader.selfchecks.ch01 import check_writes


def aligned_empty(shape, dtype=np.float32, align=64, offset=0):
    """A new, uninitialised C-contiguous array whose data starts `offset` bytes past a multiple of `align`
    (the chapter's own aligned_empty, section 4)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(nbytes + align + offset, dtype=np.uint8)
    start = (-address(raw)) % align + offset
    return np.ndarray(shape, dtype, buffer=raw, offset=start)


def filled(shape, dtype=np.float32, values=None, offset=0):
    """An aligned_empty array (data `offset` bytes past a multiple of 64) holding `values` (0, 1, 2, ... by default)."""
    out = aligned_empty(shape, dtype, offset=offset)
    out[...] = np.arange(out.size).reshape(out.shape) if values is None else values
    return out


def litter(nbytes):
    """Allocate blocks of about `nbytes` bytes with NumPy, ctypes, Python and JAX, filled with 0xFF bytes (-7.0 for
    JAX), and return them: memory freed just before is handed out again and overwritten."""
    sizes = (nbytes, nbytes + 64, nbytes + 4096)
    blocks = [np.full(size, 0xFF, np.uint8) for size in sizes for _ in range(8)]
    blocks += [ctypes.create_string_buffer(b"\xff" * size, size) for size in sizes for _ in range(8)]
    blocks += [bytearray(b"\xff" * size) for size in sizes for _ in range(8)]
    blocks += [jnp.full(max(nbytes // 4, 1), -7.0, jnp.float32) for _ in range(16)]
    jax.block_until_ready([b for b in blocks if isinstance(b, jax.Array)])
    return blocks


def _one(fn):
    """`fn` called inside a one-tuple, so that `checks.runs` tells "it raised" (None) from "it returned None"."""
    return lambda: (fn(),)


def _result(ran):
    """What `fn` returned, from what `checks.runs(_one(fn))` gave (None when it raised)."""
    return None if ran is None else ran[0]


def _pair(name, got, label):
    """`got` as (host, j) when it is a pair; else a failed check saying what came back, and (None, None)."""
    if isinstance(got, tuple) and len(got) == 2:
        return got
    if got is not None:  # it ran, and returned something else
        what = f"a tuple of {len(got)}" if isinstance(got, tuple) else f"a {type(got).__name__}"
        checks.equal(what, "a tuple of 2", what=f"what {name}({label}) returns", hint="return the pair (host, j)")
    return None, None


def _first(a):
    """The index of a's first element, for any number of axes."""
    return (0,) * np.ndim(a)


# ---- Exercise 1 ----------------------------------------------------------------------------------------------


def shared(share_with_jax, x, label, hint=None):
    """share_with_jax(x) as (host, j), or (None, None) after a failed check saying what it raised."""
    hint = hint or ("it should not raise for any x the list names: JAX refuses a buffer with gaps or a negative step "
                    "(section 4) instead of copying it, so copy such an x into an aligned buffer yourself; fill a copy with "
                    "host[...] = x, which works for 0-d arrays too")
    return _pair("share_with_jax", _result(checks.runs(_one(lambda: share_with_jax(x)), what=f"share_with_jax({label})",
                                                       hint=hint)), label)


def check_share(share_with_jax, x, label, keeps_x):
    """host is x itself when keeps_x, else a 64-byte-aligned copy in the dtype JAX gives x; j has x's values and shares host."""
    host, j = shared(share_with_jax, x, label)
    if j is None:
        return
    checks.equal((type(host), type(j)), (np.ndarray, type(jnp.asarray(x))),
                 what=f"{label}: the types share_with_jax returns (a NumPy array, a jax.Array)")
    checks.close(j, jnp.asarray(x), what=f"{label}: j",
                 hint="j has the values of x in the dtype JAX gives x (64-bit becomes 32-bit)")
    checks.close(np.asarray(host), np.asarray(jnp.asarray(x)), what=f"{label}: host",
                 hint="copy into aligned_empty(x.shape, jax.dtypes.canonicalize_dtype(x.dtype)), not its default float32 or x's own dtype")
    checks.equal(host is x, keeps_x, what=f"{label}: whether host is x itself",
                 hint="keep x when jax.dlpack.from_dlpack(x, copy=False) takes it and the dtype stays the same, whatever "
                      "that dtype (aligned, compact in any axis order, which x.flags cannot tell: it knows only C and "
                      "Fortran order); copy otherwise")
    if x.size:
        checks.equal(address(host) % 64, 0, what=f"{label}: host's data address modulo 64",
                     hint="allocate the copy with aligned_empty")
        writeable = x.flags.writeable or not keeps_x  # host is x itself, or a copy of one's own
        if writeable:
            check_writes(host, 1, f"{label}: writing 1 into host's first value",
                         hint="a copy is a NumPy array of your own, writeable: aligned_empty(...) filled with x's values")
            checks.close(j[_first(j)], 1, dtype=False, what=f"{label}: j's first value after writing 1 into host (j should share host's memory)",
                         hint="import with jax.dlpack.from_dlpack(host, copy=False), which fails instead of copying")


def check_two_calls(share_with_jax, make, label):
    """share_with_jax on two arrays of the same shape and dtype that must be copied: neither call may change the other's result."""
    first_host, first_j = shared(share_with_jax, make(1), f"{label} (first call)")
    second_host, second_j = shared(share_with_jax, make(-3), f"{label} (second call)")
    if first_j is None or second_j is None:
        return
    hint = "allocate a new aligned buffer in every call: a buffer kept from an earlier call is overwritten by the next one"
    checks.close(first_j, jnp.asarray(make(1)), what=f"{label}: the first call's j, read after the second call", hint=hint)
    checks.close(np.asarray(first_host), np.asarray(jnp.asarray(make(1))),
                 what=f"{label}: the first call's host, read after the second call", hint=hint)
    second_host[_first(second_host)] = 99
    checks.close(np.asarray(first_host), np.asarray(jnp.asarray(make(1))),
                 what=f"{label}: the first call's host after writing 99 into the second call's host (they must not share memory)",
                 hint=hint)


def late_floats(k):
    """1000 float32 values 0, k, 2k, ... whose data starts 16 bytes past a multiple of 64."""
    return filled(1000, values=np.arange(1000) * k, offset=16)


def aligned_doubles(k):
    """An aligned float64 (3, 4) matrix of values 0, k/4, 2k/4, ..."""
    return filled((3, 4), np.float64, np.arange(12).reshape(3, 4) / 4 * k)


def check_j_outlives(share_with_jax, make, label):
    """j still reads x's values after del host, del x, gc.collect() and new allocations: j keeps the memory alive."""
    x = make()
    expected = np.asarray(jnp.asarray(x))
    host, j = shared(share_with_jax, x, label)
    del host, x
    gc.collect()
    junk = litter(expected.nbytes + 64)
    checks.close(j, expected, what=f"{label}: j, read after del host, del x, gc.collect() and new allocations",
                 hint="j must keep the memory it reads alive: import an aligned NumPy array with jax.dlpack.from_dlpack "
                      "(it holds the array), never an address of memory that is freed when share_with_jax returns")
    del junk


def exercise1(share_with_jax) -> None:
    """share_with_jax keeps x when JAX can import it as it is (aligned, compact in any axis order, a dtype JAX keeps),
    and otherwise copies it into an aligned buffer of its own; j shares host's memory and keeps it alive."""
    # Aligned or not, compact or not, on the zero-copy path or copied.
    check_share(share_with_jax, filled(1000), "an aligned float32 array", True)
    check_share(share_with_jax, filled(1000, offset=16), "a float32 array 16 bytes past alignment", False)
    check_share(share_with_jax, filled(8, np.float64, np.arange(8) / 4), "an aligned float64 array", False)
    check_share(share_with_jax, filled((6, 6)).T, "a transposed aligned (6, 6) matrix", True)
    check_share(share_with_jax, filled(17)[::-1],
                "an aligned float32 array read backwards (x[::-1], whose first value is on a 64-byte boundary)", False)
    check_share(share_with_jax, filled(64)[::2], "an aligned slice with a gap (every other value)", False)
    check_share(share_with_jax, filled(10, np.int32, np.arange(10) * 7, offset=4), "an int32 array 4 bytes past alignment", False)
    check_share(share_with_jax, filled((3, 4), np.int32, np.arange(12).reshape(3, 4) - 5), "an aligned int32 (3, 4) matrix", True)
    check_share(share_with_jax, filled(20, np.uint8, np.arange(20) * 12), "an aligned uint8 array", True)
    check_two_calls(share_with_jax, late_floats, "two float32 arrays 16 bytes past alignment")
    check_two_calls(share_with_jax, aligned_doubles, "two aligned float64 (3, 4) matrices")
    # Empty arrays: nothing to share, but the shape and the dtype JAX gives x.
    host, j = shared(share_with_jax, np.zeros((0, 3), np.float32), "an empty (0, 3) float32 array",
                     "an empty array has no memory to share: return any host and j of its shape and dtype")
    checks.close(j, jnp.zeros((0, 3), jnp.float32), what="an empty (0, 3) float32 array: j")
    checks.close(np.asarray(host), np.zeros((0, 3), np.float32), what="an empty (0, 3) float32 array: host")
    # The dtypes JAX converts (64-bit ones) and those it keeps.
    check_share(share_with_jax, filled(6, np.complex128, np.arange(6) + 0.5j), "an aligned complex128 array (JAX keeps it as complex64)", False)
    check_share(share_with_jax, filled(5, np.uint64, np.arange(5) * 3), "an aligned uint64 array (JAX keeps it as uint32)", False)
    check_share(share_with_jax, filled((2, 3), np.int64, np.arange(6).reshape(2, 3) - 2), "an aligned int64 matrix (JAX keeps it as int32)", False)
    check_share(share_with_jax, filled((2, 3, 4), np.int32).transpose(1, 0, 2), "an aligned int32 (2, 3, 4) array with axes 0 and 1 swapped", True)
    host, j = shared(share_with_jax, np.zeros((0, 2), np.int32), "an empty (0, 2) int32 array",
                     "an empty array has no memory to share: return any host and j of its shape and dtype")
    checks.equal(str(getattr(j, "dtype", None)), "int32", what="an empty (0, 2) int32 array: j's dtype",
                 hint="j has the dtype JAX gives x even when x is empty: jnp.zeros(shape) alone is float32")
    host, j = shared(share_with_jax, np.zeros((0, 3), np.float64), "an empty (0, 3) float64 array",
                     "an empty array has no memory to share: return a host and j of its shape, in the dtype JAX gives it")
    checks.equal([str(getattr(host, "dtype", None)), str(getattr(j, "dtype", None))], ["float32", "float32"],
                 what="an empty (0, 3) float64 array: the dtypes of host and j",
                 hint="both have the dtype JAX gives x, also when x is empty: x itself keeps float64")
    for dtype in (np.int8, np.int16, np.uint16, np.uint32, np.bool_, np.float16, np.complex64):
        check_share(share_with_jax, filled(12, dtype, np.arange(12) % 5 if dtype is not np.bool_ else np.arange(12) % 3 == 1),
                    f"an aligned {np.dtype(dtype).name} array (a dtype JAX keeps)", True)
    # 0-d arrays, views whose odd strides do not matter, read-only arrays, Fortran order.
    check_share(share_with_jax, filled((), values=2.5), "an aligned 0-d float32 array", True)
    check_share(share_with_jax, filled((), np.float64, -1.25), "a 0-d float64 array (copied to float32)", False)
    check_share(share_with_jax, filled((), np.int32, 9, offset=4), "a 0-d int32 array 4 bytes past alignment", False)
    check_share(share_with_jax, filled(8)[:, None], "an aligned (8, 1) column view (strides (4, 0))", True)
    frozen = filled(16)
    frozen.flags.writeable = False
    host, _ = shared(share_with_jax, frozen, "an aligned read-only float32 array")
    checks.equal(host is frozen, True, what="an aligned read-only float32 array: whether host is x itself",
                 hint="JAX imports a read-only buffer with copy=False too: keep x whenever JAX can import it, writeable or not")
    for x, label in ((filled(16, offset=16), "a read-only float32 array 16 bytes past alignment"),
                     (filled(6, np.float64, np.arange(6) / 4), "an aligned read-only float64 array")):
        x.flags.writeable = False
        check_share(share_with_jax, x, label, False)   # copied: host is a writeable array of its own
    fortran = aligned_empty((4, 3), np.float64).T
    fortran[:] = np.arange(12).reshape(3, 4) / 2
    check_share(share_with_jax, fortran, "a Fortran-order float64 (3, 4) array", False)
    host, _ = shared(share_with_jax, fortran, "a Fortran-order float64 (3, 4) array")
    checks.equal(getattr(getattr(host, "flags", None), "c_contiguous", None), True,
                 what="a Fortran-order float64 (3, 4) array: whether the copy, host, is C-contiguous",
                 hint="copy into aligned_empty(x.shape, ...), C-contiguous whatever x's axis order")
    # Each call copies afresh, into memory of its own that j keeps alive.
    again = late_floats(1)
    first_host, first_j = shared(share_with_jax, again, "a float32 array 16 bytes past alignment (first of two calls on it)")
    again[0] = 50.0
    second_host, second_j = shared(share_with_jax, again, "the same array after again[0] = 50 (second call)")
    if second_j is not None:
        checks.equal([float(np.asarray(second_host)[0]), float(second_j[0]), second_host is first_host], [50.0, 50.0, False],
                     what="the second call on one x, after x[0] = 50: [host[0], j[0], whether host is the first call's host]",
                     hint="copy x in every call, into a new buffer: a copy kept for x from an earlier call has x's old values")
    calls = [(k, *shared(share_with_jax, late_floats(k), f"call {k} of 40 on float32 arrays 16 bytes past alignment"))
             for k in range(1, 41)]
    checks.equal([k for k, host, j in calls if j is None or not np.array_equal(np.asarray(j), late_floats(k))
                  or not np.array_equal(host, late_floats(k))], [],
                 what="which of 40 calls on float32 arrays of 4 KB, 16 bytes past alignment, no longer hold their own values after the 40th",
                 hint="allocate a new aligned buffer in every call: a pool reused once it is full overwrites earlier results")
    check_j_outlives(share_with_jax, lambda: filled(1000, values=np.arange(1000) + 0.5, offset=16),
                     "a float32 array 16 bytes past alignment (copied)")
    check_j_outlives(share_with_jax, lambda: filled(64, np.int32), "an aligned int32 array (kept)")


# ---- Exercise 2 ----------------------------------------------------------------------------------------------


def twin(writeable_twin, y, label):
    """writeable_twin(y) as (host, j), or (None, None) after a failed check saying what it raised."""
    ran = checks.runs(_one(lambda: writeable_twin(y)), what=f"writeable_twin({label})",
                      hint="a 0-d array is indexed with host[...] or host[()], not host[:]; an empty one has no memory to "
                           "share (jnp.asarray(host) will do for it)")
    return _pair("writeable_twin", _result(ran), label)


def after_writing(host, value):
    """Write `value` at host's first index and return what is read there; None if host is read-only."""
    try:
        host[_first(host)] = value
    except ValueError:
        return None
    return host[_first(host)]


def check_twin(writeable_twin, make, label, written=1):
    """host is writeable, j shares its memory, both have y's values, shape and dtype, and y never changes."""
    y = make()
    host, j = twin(writeable_twin, y, label)
    if j is None:
        return
    checks.equal((type(host), type(j)), (np.ndarray, type(y)),
                 what=f"{label}: the types writeable_twin returns (a NumPy array, a jax.Array)")
    checks.close(j, y, what=f"{label}: j", hint="copy y's values exactly, in y's own dtype and shape, into memory host owns "
                                                "(j shares it, so it must still be there after writeable_twin returns)")
    checks.close(np.asarray(host), np.asarray(y), what=f"{label}: host",
                 hint="allocate host with aligned_empty(y.shape, y.dtype) and copy y's values in unchanged")
    if y.size:  # an empty array has nothing to write into
        check_writes(host, written, f"{label}: writing {written} into host's first element",
                     hint="host must be writeable, and a NumPy view of a JAX array is always read-only: "
                          "let NumPy own the memory and import it into JAX")
        checks.close(j[_first(j)], np.array(written).astype(y.dtype), dtype=False,
                     what=f"{label}: j's first value after writing {written} into host (j should share host's memory)",
                     hint="allocate host with aligned_empty and import it with copy=False")
        checks.close(y, make(), what=f"{label}: y after writing {written} into host", hint="host shares y's memory; y must stay unchanged")


def first_after_writing(writeable_twin, n, alive):
    """What j reads at index 0 after writing 1 into host, for the twin of a float32 vector of n values (kept in `alive`)."""
    host, j = writeable_twin(jnp.arange(2.0, n + 2.0, dtype=jnp.float32))
    host[0] = 1.0
    alive.append(host)
    return float(j[0])


def check_two_twins(writeable_twin, make, label):
    """writeable_twin of two arrays of the same shape and dtype: neither call may change the other's result."""
    first_host, first_j = twin(writeable_twin, make(1), f"{label} (first call)")
    second_host, second_j = twin(writeable_twin, make(-3), f"{label} (second call)")
    if first_j is None or second_j is None:
        return
    hint = "allocate a new host in every call: a buffer kept from an earlier call is overwritten by the next one"
    checks.close(first_j, make(1), what=f"{label}: the first call's j, read after the second call", hint=hint)
    checks.close(np.asarray(first_host), np.asarray(make(1)), what=f"{label}: the first call's host, read after the second call",
                 hint=hint)
    after_writing(second_host, 99)
    checks.close(np.asarray(first_host), np.asarray(make(1)),
                 what=f"{label}: the first call's host after writing 99 into the second call's host (they must not share memory)",
                 hint=hint)


def check_twin_lifetime(writeable_twin, n):
    """host keeps its values after del j (and del y), gc.collect() and new allocations; j keeps them after del host."""
    expected = np.arange(n, dtype=np.float32) + 1
    host, j = twin(writeable_twin, jnp.asarray(expected), f"a float32 vector of {n} values")
    if j is None:
        return
    del j
    gc.collect()
    junk = litter(n * 4)
    checks.close(np.asarray(host), expected,
                 what=f"the twin of a float32 vector of {n} values: host, read after del j, gc.collect() and new allocations",
                 hint="host must own its memory (or hold what owns it): a NumPy array over the address of a JAX buffer reads "
                      "whatever takes that memory once the JAX array is gone. Let NumPy own it (aligned_empty) and import it")
    del junk
    host, j = twin(writeable_twin, jnp.asarray(expected), f"a float32 vector of {n} values (again)")
    if j is None:
        return
    del host
    gc.collect()
    junk = litter(n * 4)
    checks.close(j, expected,
                 what=f"the twin of a float32 vector of {n} values: j, read after del host, gc.collect() and new allocations",
                 hint="j must keep host's memory alive: jax.dlpack.from_dlpack(host, copy=False) holds host")
    del junk


def exercise2(writeable_twin) -> None:
    """writeable_twin gives a writeable host and a j over the same memory, for every shape, dtype and size; each call
    its own host, and each of host and j keeps the memory alive without the other."""
    check_twin(writeable_twin, lambda: jnp.arange(1000, dtype=jnp.float32) * 0.5, "a float32 vector")
    check_twin(writeable_twin, lambda: jnp.array([[2 ** 24 + 1, -3, 7], [2 ** 30 + 1, 0, 5]], jnp.int32), "an int32 (2, 3) matrix",
               written=2 ** 24 + 3)
    check_twin(writeable_twin, lambda: jnp.float32(7.5), "a 0-d float32 array")
    check_twin(writeable_twin, lambda: jnp.int32(-(2 ** 31) + 1), "a 0-d int32 array", written=2 ** 31 - 5)
    check_twin(writeable_twin, lambda: jnp.zeros((0, 4), jnp.float32), "an empty (0, 4) array")
    check_twin(writeable_twin, lambda: jnp.array([False, True, True]), "a bool vector", written=True)
    check_twin(writeable_twin, lambda: jnp.arange(24, dtype=jnp.int8).reshape(2, 3, 4) - 12, "an int8 (2, 3, 4) array", written=-100)
    check_twin(writeable_twin, lambda: jnp.array([200, 3, 255], jnp.uint8), "a uint8 vector", written=250)
    check_twin(writeable_twin, lambda: jnp.array([-300, 7], jnp.int16), "an int16 vector", written=-2)
    check_twin(writeable_twin, lambda: jnp.array([2 ** 32 - 1, 5], jnp.uint32), "a uint32 vector", written=2 ** 32 - 3)
    check_twin(writeable_twin, lambda: jnp.array([[60000], [1]], jnp.uint16), "a uint16 column", written=65535)
    check_twin(writeable_twin, lambda: jnp.linspace(-1, 1, 35, dtype=jnp.float16).reshape(5, 7), "a float16 (5, 7) matrix")
    check_twin(writeable_twin, lambda: jnp.arange(6, dtype=jnp.complex64).reshape(3, 2).T * (1 + 1j), "a complex64 (2, 3) matrix")
    check_two_twins(writeable_twin, lambda k: jnp.arange(1, 101, dtype=jnp.float32) * k, "two float32 vectors of 100 values")
    same_y = jnp.arange(4, dtype=jnp.float32)
    first_host, first_j = twin(writeable_twin, same_y, "a float32 vector (first of two calls on it)")
    if first_j is not None:
        after_writing(first_host, 100)
        second_host, second_j = twin(writeable_twin, same_y, "the same y again, after writing 100 into the first call's host")
        if second_j is not None:
            checks.equal([np.asarray(second_host).tolist(), np.asarray(second_j).tolist(), second_host is first_host],
                         [[0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0], False],
                         what="a second call on the same y after writing 100 into the first call's host: [host, j, whether host "
                              "is the first call's host]",
                         hint="make a new host in every call, even for the same y: the first call's host is the caller's to change")
    alive = []
    checks.equal([first_after_writing(writeable_twin, n, alive) for n in range(1, 9)], [1.0] * 8,
                 what="j's first value after writing 1 into host, for float32 vectors of 1 to 8 values",
                 hint="NumPy puts a new array wherever its allocator likes, often not on a multiple of 64 bytes, and then "
                      "JAX copies it: allocate host with aligned_empty and import it with copy=False")
    checks.equal(first_after_writing(writeable_twin, 9_000_000, alive), 1.0,
                 what="j's first value after writing 1 into host, for a float32 vector of 9 million values",
                 hint="NumPy gets a large array from the system at 16 bytes past a page boundary, not on a multiple of 64 "
                      "bytes, and then JAX copies it: allocate host with aligned_empty and import it with copy=False")
    del alive
    check_twin(writeable_twin, lambda: jnp.zeros((0, 3), jnp.int32), "an empty (0, 3) int32 array")
    check_twin(writeable_twin, lambda: jnp.zeros((2, 0), jnp.float32), "an empty (2, 0) array")
    twins = [(k, *twin(writeable_twin, jnp.arange(1000, dtype=jnp.float32) * k, f"call {k} of 40 on float32 vectors of 1000 values"))
             for k in range(1, 41)]
    checks.equal([k for k, host, j in twins if j is None or not np.array_equal(np.asarray(j), np.arange(1000, dtype=np.float32) * k)
                  or not np.array_equal(host, np.arange(1000, dtype=np.float32) * k)], [],
                 what="which of 40 twins of float32 vectors of 4 KB no longer hold their own values after the 40th call",
                 hint="allocate a new host in every call: a pool reused once it is full overwrites earlier results")
    del twins
    for n in (8, 1000):
        check_twin_lifetime(writeable_twin, n)


# ---- Exercise 3 ----------------------------------------------------------------------------------------------


def _pointer(argument) -> int | None:
    """The address a ctypes argument points at: an int, a c_void_p, a NumPy array (an ndpointer argument)."""
    if isinstance(argument, np.ndarray):
        return argument.ctypes.data
    value = getattr(argument, "value", argument)
    return value if isinstance(value, int) else None


@contextlib.contextmanager
def counting_cpp(functions):
    """Inside the block, each call of the ctypes functions in `functions` (scale_f32, checked_scale_f32) that reached
    C++ records (its element count, the data address it was given) in the list yielded, whatever name it was called
    by (an alias, a default argument): ctypes runs a function's errcheck after every call that ran. A call whose
    arguments ctypes refused (checked_scale_f32's ndpointer) ran nothing and records nothing."""
    calls: list[tuple[int, int | None]] = []

    def count(result, function, arguments):
        n = arguments[1]
        calls.append((int(getattr(n, "value", n)), _pointer(arguments[0])))  # n: a Python int, or a ctypes.c_int64
        return result

    kept = [getattr(function, "errcheck", None) for function in functions]  # None also for a name rebound to Python code
    for function in functions:
        function.errcheck = count
    try:
        yield calls
    finally:
        for function, errcheck in zip(functions, kept):
            if errcheck is None:
                del function.errcheck
            else:
                function.errcheck = errcheck


def scaled(scale_and_view, functions, host, factor, label):
    """scale_and_view(host, factor) (None after a failed check saying what it raised), and the (element count,
    address) of each call of scale_f32 it made."""
    with counting_cpp(functions) as calls:
        result = _result(checks.runs(_one(lambda: scale_and_view(host, factor)), what=f"scale_and_view({label})",
                                     hint="refuse only another dtype, a layout that is not C-contiguous or a read-only array; "
                                          "an unaligned host is fine, and jax.dlpack.from_dlpack(host) without copy=False "
                                          "then copies it"))
    return result, calls


def check_scaled(scale_and_view, functions, n, factor, label, offset=0, shape=None):
    """scale_and_view scales n float32 values in place with one call of scale_f32, touches nothing after them,
    and returns their new values (sharing host's memory when host is aligned)."""
    guard = 4 * n + 8  # values after the array: enough to catch a count in bytes (4 * n values written) readably
    buffer = aligned_empty(n + guard, offset=offset)
    buffer[:] = np.arange(1, n + guard + 1)
    host = buffer[:n].reshape(shape if shape is not None else (n,))
    where = address(host)
    j, calls = scaled(scale_and_view, functions, host, factor, label)
    if n:
        checks.equal([count for count, _ in calls], [host.size], what=f"{label}: the element counts scale_f32 was called with",
                     hint="scale host in place with one call of section 7's scale_f32: scale_f32(address(host), host.size, factor), "
                          "not with NumPy")
        checks.equal([a - where if a is not None else None for _, a in calls], [0],
                     what=f"{label}: where scale_f32 was pointed, in bytes from host's data",
                     hint="hand scale_f32 host's own memory, address(host): scaling a copy and writing it back is not in place")
    checks.equal(type(j), type(jnp.zeros(())), what=f"{label}: the type scale_and_view returns (a jax.Array)")
    checks.close(j, jnp.asarray(np.arange(1, n + 1, dtype=np.float32).reshape(host.shape) * np.float32(factor)),
                 what=f"{label}: the returned array",
                 hint="import host after scaling it: for an unaligned host, jax.dlpack.from_dlpack copies the values it finds")
    checks.close(buffer, np.concatenate([np.arange(1, n + 1, dtype=np.float32) * np.float32(factor),
                                         np.arange(n + 1, n + guard + 1, dtype=np.float32)]),
                 what=f"{label}: host (scaled in place) and the memory after it (untouched)",
                 hint="call scale_f32(address(host), host.size, factor); do not make a new array")
    checks.equal(address(host) - where, 0, what=f"{label}: how many bytes host's data moved")
    if offset == 0 and n and isinstance(j, jax.Array):
        host.flat[0] = 42.0
        checks.equal(float(j[_first(j)]), 42.0, what=f"{label}: the returned array's first value after writing 42 into host",
                     hint="the returned array should share host's memory: import host with jax.dlpack.from_dlpack")


def check_refused(scale_and_view, functions, host, label, unchanged, memory=None):
    """scale_and_view(host, 3.0) raises ValueError without calling scale_f32; `memory` (host's base, by default host) is unchanged."""
    with counting_cpp(functions) as calls:
        checks.raises(ValueError, lambda: scale_and_view(host, 3.0), what=label,
                      hint="check dtype, flags.c_contiguous (which looks at every axis, not only the last stride) and "
                           "flags.writeable before calling scale_f32")
    checks.equal([count for count, _ in calls], [], what=f"{label}: the element counts scale_f32 was called with before the refusal",
                 hint="refuse before touching any memory: check first, call scale_f32 after")
    checks.close(np.asarray(host if memory is None else memory), unchanged,
                 what=f"{label}: {'host' if memory is None else 'the whole array it is a view of'} after the refusal")


def exercise3(scale_and_view, scale_f32, checked_scale_f32) -> None:
    """scale_and_view scales every writeable C-contiguous float32 host in place with one call of scale_f32 and returns
    its new values, kept alive; it refuses every other host with ValueError before touching any memory."""
    cpp = (scale_f32, checked_scale_f32)
    check_scaled(scale_and_view, cpp, 1000, 2.0, "1000 aligned float32 values times 2")
    check_scaled(scale_and_view, cpp, 12, -0.5, "a (3, 4) matrix times -0.5", shape=(3, 4))
    check_scaled(scale_and_view, cpp, 10, 3.0, "10 float32 values 16 bytes past alignment", offset=16)
    readonly = filled(16, values=1.0)
    readonly.flags.writeable = False
    check_refused(scale_and_view, cpp, readonly, "a read-only array", np.ones(16, np.float32))
    check_refused(scale_and_view, cpp, filled(12)[::3], "a strided view (every third value)", np.arange(0, 12, 3, dtype=np.float32))
    check_refused(scale_and_view, cpp, filled((2, 3)).T, "a transposed (3, 2) view", np.arange(6, dtype=np.float32).reshape(2, 3).T)
    rows = filled((4, 3))
    check_refused(scale_and_view, cpp, rows[::2], "every other row of a (4, 3) matrix", np.arange(12, dtype=np.float32).reshape(4, 3),
                  memory=rows)
    columns = filled((3, 4))
    check_refused(scale_and_view, cpp, columns[:, :2], "the first two columns of a (3, 4) matrix",
                  np.arange(12, dtype=np.float32).reshape(3, 4), memory=columns)
    padded = filled(64)  # a reversed view starts at its last element: room after it shows a write past its end
    check_refused(scale_and_view, cpp, padded[:32][::-1], "a view read backwards (x[::-1])", np.arange(64, dtype=np.float32),
                  memory=padded)
    check_refused(scale_and_view, cpp, filled(4, np.float64, [0.5, 1.5, 2.5, 3.5]), "a float64 array", np.array([0.5, 1.5, 2.5, 3.5]))
    check_refused(scale_and_view, cpp, filled(8, ">f4"), "a big-endian float32 array (dtype '>f4')", np.arange(8, dtype=">f4"))
    check_refused(scale_and_view, cpp, filled(6, np.int32), "an aligned int32 array (4 bytes per value, but not float32)",
                  np.arange(6, dtype=np.int32))
    check_refused(scale_and_view, cpp, np.zeros(0, np.int32), "an empty int32 array", np.zeros(0, np.int32))
    frozen_empty = np.zeros((0, 2), np.float32)
    frozen_empty.flags.writeable = False
    check_refused(scale_and_view, cpp, frozen_empty, "an empty read-only float32 array", np.zeros((0, 2), np.float32))
    check_scaled(scale_and_view, cpp, 1, 2.0, "a 0-d float32 host", shape=())
    check_scaled(scale_and_view, cpp, 0, 2.0, "an empty (3, 0) float32 host", shape=(3, 0))
    column = filled(6, values=np.arange(1, 7))
    j, _ = scaled(scale_and_view, cpp, column[:, None], 2.0, "a (6, 1) column view, strides (4, 0): it is C-contiguous")
    checks.close(j, np.arange(1, 7, dtype=np.float32)[:, None] * 2, what="a (6, 1) column view times 2",
                 hint="ask NumPy, host.flags.c_contiguous: the stride of an axis of length 1 (or 0) does not matter")
    late = filled(10, offset=16)
    scaled(scale_and_view, cpp, late, 2.0, "10 float32 values 16 bytes past alignment")
    again, _ = scaled(scale_and_view, cpp, late, 3.0, "the same 10 values again")
    checks.close(again, np.arange(10, dtype=np.float32) * 6,
                 what="scale_and_view(host, 3.0) after scale_and_view(host, 2.0), for a host 16 bytes past alignment",
                 hint="import host on every call: for an unaligned host, from_dlpack copies, and an array kept from an earlier "
                      "call does not see the later scaling")
    # The returned array keeps host's memory alive.
    host = filled(1000, values=np.arange(1000) + 1)
    kept, _ = scaled(scale_and_view, cpp, host, 2.0, "1000 aligned float32 values times 2 (kept)")
    del host
    gc.collect()
    junk = litter(1000 * 4 + 64)
    checks.close(kept, (np.arange(1000, dtype=np.float32) + 1) * 2,
                 what="the array scale_and_view returned for 1000 aligned values, read after del host, gc.collect() and new allocations",
                 hint="the returned array must keep host's memory alive: jax.dlpack.from_dlpack(host) holds host, an array made "
                      "from host's address does not")
    del junk
