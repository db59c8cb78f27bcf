"""Self-checks of chapter 01, "Move arrays between NumPy and JAX": what each exercise's self-check cell runs."""

from __future__ import annotations

import collections
import contextlib
import ctypes
import dataclasses
import gc

import jax
import jax.numpy as jnp
import numpy as np

from grader.memory import address
from grader.notebook import checks

#: A record of three uint8 fields: 3 bytes an element, a size that does not divide 64.
RGB = np.dtype([("r", np.uint8), ("g", np.uint8), ("b", np.uint8)])


def aligned_values(n, dtype=np.float32, align=64):
    """The values 0, 1, 2, ... (n of them, in `dtype`) in a fresh, writeable array whose data starts at a
    multiple of `align` bytes: a view into a byte buffer, as chapter 01's aligned_float32 makes."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.empty(n * itemsize + align, dtype=np.uint8)
    start = (-raw.ctypes.data) % align
    out = raw[start:start + n * itemsize].view(dtype)
    out[...] = np.arange(n)
    return out


def check_writes(a, value, what, *, hint=None):
    """Check that `value` can be written into the first element of `a`, a NumPy array of any shape: what happened,
    "written", or what the write raised (compared outside the kernel when grading, as every check's value is)."""
    if not isinstance(a, np.ndarray):
        happened = f"nothing: it is no NumPy array but {type(a).__name__}"
    else:
        try:
            a[(0,) * a.ndim] = value
            happened = "written"
        except Exception as err:
            happened = f"it raised {checks.error_text(err)}"
    checks.equal(happened, "written", what=f"{what}: what happened", hint=hint)


@contextlib.contextmanager
def aligned_next_allocation(nbytes):
    """While the block runs, the next NumPy array of `nbytes` bytes of data starts on a multiple of 64 bytes: NumPy
    keeps small blocks it frees for its next allocations of their size, the last freed first, so one that happens to
    be aligned is found and freed just before. An answer's staging buffer of that size is then one that device_put
    keeps using, on every run, not only when the allocator happens to align it."""
    held = [np.empty(nbytes, np.uint8) for _ in range(256)]
    aligned = next((i for i, a in enumerate(held) if address(a) % 64 == 0), None)
    if aligned is not None:
        del held[aligned]
    try:
        yield
    finally:
        del held


def litter(nbytes):
    """Allocate blocks of about `nbytes` bytes, with NumPy, ctypes and Python, filled with 0xFF bytes, and
    return them: memory that was freed just before is handed out again and overwritten."""
    sizes = (nbytes, nbytes + 64, nbytes + 4096)
    blocks = [np.full(size, 0xFF, np.uint8) for size in sizes for _ in range(8)]
    blocks += [ctypes.create_string_buffer(b"\xff" * size, size) for size in sizes for _ in range(8)]
    blocks += [bytearray(b"\xff" * size) for size in sizes for _ in range(8)]
    return blocks


def _one(fn):
    """`fn` called inside a one-tuple, so that `checks.runs` tells "it raised" (None) from "it returned None"."""
    return lambda: (fn(),)


def _result(ran):
    """What `fn` returned, from what `checks.runs(_one(fn))` gave (None when it raised)."""
    return None if ran is None else ran[0]


# ---- Exercise 1 ----------------------------------------------------------------------------------------------


def check_aligned_copy(aligned_copy, x, label, align=None):
    """aligned_copy(x) (or aligned_copy(x, align)) is a new NumPy array: x's dtype and values, its data at a
    multiple of align (64 by default), C-contiguous, writeable, sharing no memory with x. Returns it (None
    when it raised)."""
    size = 64 if align is None else align
    before = np.array(x)  # x as given, to see whether writing into the result changes it
    call = (lambda: aligned_copy(x)) if align is None else (lambda: aligned_copy(x, align))
    out = _result(checks.runs(_one(call), what=label, hint="it must work for every shape, layout and dtype the list names"))
    checks.equal(type(out), np.ndarray, what=f"{label}: the type of the result (a NumPy array)")
    checks.close(out, x, what=label, hint="view the aligned bytes as x.dtype and copy with out[...] = x (it works for every shape and layout), into memory "
                 "the result keeps alive")
    if isinstance(out, np.ndarray) and x.size:  # an empty array has no data: only its shape and dtype matter
        checks.equal(out.ctypes.data % size, 0, what=f"{label}: the result's data address modulo {size}",
                     hint="allocate `align` extra bytes and start the array at the first multiple of `align` inside them")
        checks.equal(out.strides, np.empty(x.shape, x.dtype).strides,
                     what=f"{label}: the result's strides (a C-contiguous array's)",
                     hint="lay the result out in C order, whatever the layout of x")
        check_writes(out, 99, f"{label}: writing 99 into the result's first element",
                     hint="the result should be writeable")
        checks.close(x, before, what=f"{label}: x after writing 99 into the result",
                     hint="the result shares memory with x (is it x itself?): it must be a copy, even of an aligned x")
    return out


def _records_copied(aligned_copy, x, label, align=None):
    """aligned_copy of an array of 3-byte RGB records: its dtype, its values, and its data address modulo align."""
    size = 64 if align is None else align
    call = (lambda: aligned_copy(x)) if align is None else (lambda: aligned_copy(x, align))
    out = _result(checks.runs(_one(call), what=label))
    checks.equal(str(getattr(out, "dtype", None)), str(x.dtype), what=f"the dtype of {label}")
    checks.equal(out.tolist() if isinstance(out, np.ndarray) else out, x.tolist(), what=f"the values of {label}")
    return out


def exercise1(aligned_copy) -> None:
    """aligned_copy on every shape, layout, dtype and align the list names; each result new, kept alive and
    its own; jax.device_put aliases a float32 result."""
    # A float32 x, already aligned itself: the result is a copy, which jax.device_put aliases.
    out = check_aligned_copy(aligned_copy, aligned_values(1000), "aligned_copy(an aligned float32 arange(1000))")
    if isinstance(out, np.ndarray):
        put = jax.device_put(out)
        out.flat[0] = 42.0
        checks.equal(float(put.ravel()[0]), 42.0, what="jax.device_put(result)[0] after writing 42 into the result",
                     hint="jax.device_put should alias your 64-byte-aligned float32 copy: return the aligned array itself")
    # Shapes: 0-d and empty arrays.
    check_aligned_copy(aligned_copy, np.array(3.5, np.float32), "aligned_copy(a 0-d float32 array)")
    check_aligned_copy(aligned_copy, np.array(-7, np.int64), "aligned_copy(a 0-d int64 array, align=4096)", 4096)
    check_aligned_copy(aligned_copy, np.zeros((0, 3), np.float32), "aligned_copy(an empty (0, 3) array)")
    nothing = np.zeros((2, 0), np.int16)
    nothing.flags.writeable = False
    empty_copy = _result(checks.runs(_one(lambda: aligned_copy(nothing, 4096)),
                                     what="aligned_copy(a read-only empty (2, 0) int16 array, align=4096)"))
    checks.equal([empty_copy is nothing, getattr(getattr(empty_copy, "flags", None), "writeable", None),
                  np.shape(empty_copy), str(getattr(empty_copy, "dtype", None))], [False, True, (2, 0), "int16"],
                 what="aligned_copy(a read-only empty (2, 0) int16 array, align=4096): [whether it is x itself, "
                      "whether it is writeable, its shape, its dtype]",
                 hint="return a new array for every x, an empty one too: not x itself")
    # Layouts: C order, Fortran order (a transpose), a strided slice.
    check_aligned_copy(aligned_copy, np.arange(10, dtype=np.int16).reshape(2, 5), "aligned_copy(an int16 (2, 5) array, align=256)", 256)
    check_aligned_copy(aligned_copy, np.arange(12, dtype=np.float32).reshape(3, 4).T, "aligned_copy(a transposed (4, 3) array)")
    check_aligned_copy(aligned_copy, np.asfortranarray(np.linspace(-1.0, 1.0, 30).reshape(5, 6)),
                       "aligned_copy(a Fortran-order 5x6 float64 array)")
    check_aligned_copy(aligned_copy, np.arange(20, dtype=np.float32)[::2], "aligned_copy(a strided slice, arange(20)[::2])")
    check_aligned_copy(aligned_copy, np.arange(12, dtype=np.float32).reshape(3, 4).T, "aligned_copy(a transposed (4, 3) array, "
                       "align=1)", 1)   # any address will do: a copy that keeps x's layout is found out at once
    # Dtypes: bool, integers, floats (bfloat16 too), complex, big-endian, 3-byte records.
    check_aligned_copy(aligned_copy, np.linspace(-1.0, 1.0, 35).reshape(5, 7), "aligned_copy(a 5x7 float64 array)")
    check_aligned_copy(aligned_copy, np.array([False, True, True, False, True]), "aligned_copy(a bool array)")
    check_aligned_copy(aligned_copy, np.array([1 + 2j, -0.5j, 3.0], np.complex64), "aligned_copy(a complex64 array)")
    check_aligned_copy(aligned_copy, np.array([0.5, -1.5, 2.0, 3.0], jnp.bfloat16), "aligned_copy(a bfloat16 array)")
    swapped = check_aligned_copy(aligned_copy, aligned_values(6).astype(">f4"), "aligned_copy(a big-endian '>f4' array)")
    checks.equal(str(getattr(swapped, "dtype", None)), ">f4", what="the dtype of aligned_copy(a big-endian '>f4' array)",
                 hint="keep x's dtype exactly, its byte order too: no newbyteorder, no astype")
    _records_copied(aligned_copy, np.array([(255, 0, 0), (0, 128, 255), (1, 2, 3)], dtype=RGB),
                    "aligned_copy(three 3-byte RGB records)")
    runs = np.zeros(24, RGB)
    copies = [aligned_copy(runs[:n]) for n in range(1, 25)]
    checks.equal(sum(c.ctypes.data % 64 != 0 for c in copies), 0,
                 what="how many of 24 copies of 3-byte RGB arrays start at an address that is not a multiple of 64",
                 hint="slide the start by a number of bytes, not of elements: a 3-byte element does not divide 64")
    copies = [aligned_copy(runs[:n], 4096) for n in range(1, 7)]
    checks.equal(sum(c.ctypes.data % 4096 != 0 for c in copies), 0,
                 what="how many of 6 copies of 3-byte RGB arrays made with align=4096 start at an address that is not a multiple of 4096")
    # align: any power of two from 1 to 4096.
    for align in (1, 8, 4096):
        check_aligned_copy(aligned_copy, np.arange(33, dtype=np.float32), f"aligned_copy(arange(33.), align={align})", align)
    sizes = (1, 7, 33, 100, 1000, 5000, 20000, 100000)
    big = [aligned_copy(np.full(n, n, np.float32), 4096) for n in sizes]
    checks.equal(sum(c.ctypes.data % 4096 != 0 for c in big), 0,
                 what="how many of 8 float32 copies made with align=4096 start at an address that is not a multiple of 4096",
                 hint="use `align` for the extra bytes and the offset, not a fixed 64")
    # Every result is new and its own: no pool, no cache, nothing shared between calls.
    first = aligned_copy(np.arange(5, dtype=np.float32))
    aligned_copy(np.arange(5, 10, dtype=np.float32))
    checks.close(first, np.arange(5, dtype=np.float32), what="the result of aligned_copy(arange(5.)) after a second call",
                 hint="each call must return a new array of its own, not a slice of memory kept between calls")
    twin = aligned_copy(np.arange(5, dtype=np.float32))
    twin[...] = -1.0
    checks.close(first, np.arange(5, dtype=np.float32),
                 what="the result of aligned_copy(arange(5.)) after writing -1 into a second aligned_copy(arange(5.))",
                 hint="two results must not share memory: allocate new memory in every call, even for the same input")
    small = [aligned_copy(np.full(3, n, np.int32)) for n in range(300)]              # 12 bytes each
    medium = [aligned_copy(np.full(1 << 14, n, np.float32)) for n in range(64)]      # 64 KiB each
    large = [aligned_copy(np.full(1 << 20, n, np.float32)) for n in range(8)]        # 4 MiB each
    checks.close(first, np.arange(5, dtype=np.float32),
                 what="aligned_copy(arange(5.)) after 372 more copies (300 of 12 bytes, 64 of 64 KiB, 8 of 4 MiB)",
                 hint="each call must return memory of its own: a pool or arena reused across calls overwrites earlier results")
    checks.equal(sum(int(c[0]) != v or int(c[-1]) != v for v, c in zip([*range(300), *range(64), *range(8)], small + medium + large)), 0,
                 what="how many of those 372 copies no longer hold their values, read after all were made",
                 hint="each call must return memory of its own: a pool or arena reused across calls overwrites earlier results")
    same = np.arange(4, dtype=np.float32)
    before_change = aligned_copy(same)
    same[0] = 9.0
    after_change = aligned_copy(same)
    checks.equal([float(before_change[0]), float(after_change[0]), after_change is before_change], [0.0, 9.0, False],
                 what="aligned_copy(x) before and after x[0] = 9, for the same x: [first result's x[0], second's, whether they are one object]",
                 hint="copy x on every call: a result kept for an earlier call (by id(x), say) is stale once x changes")
    # The result keeps its memory alive: read after del, gc.collect() and new allocations.
    for n in (64, 1000):
        x = np.arange(n, dtype=np.float32)
        kept = _result(checks.runs(_one(lambda: aligned_copy(x)), what=f"aligned_copy(arange({n}.))"))
        del x
        gc.collect()
        junk = litter(n * 4 + 64)
        checks.close(kept, np.arange(n, dtype=np.float32),
                     what=f"aligned_copy(arange({n}.)), read after del x, gc.collect() and new allocations",
                     hint="the result must keep its memory alive: view a NumPy buffer (the view's .base holds it), never "
                          "an address of memory that is freed when aligned_copy returns")
        del junk


# ---- Exercise 2 ----------------------------------------------------------------------------------------------


def check_frozen(frozen_put, x, label):
    """frozen_put(x) is a jax.Array with x's values, in the dtype jnp.asarray(x) has; a later write to x does not
    show in it."""
    before, writeable = np.array(x), x.flags.writeable
    out = _result(checks.runs(_one(lambda: frozen_put(x)), what=f"frozen_put({label})"))
    checks.equal(type(out), type(jnp.asarray(before)), what=f"{label}: the type frozen_put returns (a jax.Array)")
    checks.close(out, jnp.asarray(before), what=label,
                 hint="keep x's shape and the dtype JAX gives it by default (what jnp.asarray(x) has)")
    checks.equal(x.flags.writeable, writeable, what=f"{label}: whether x can still be written after frozen_put(x)",
                 hint="leave the caller's x as it was (its flags too): copy it, do not freeze it")
    x[...] = x + 1
    checks.close(out, jnp.asarray(before), what=f"{label} after the input was changed in place",
                 hint="an aligned NumPy array of any dtype can be aliased by device_put: make sure JAX gets its own copy")


def owning_aligned(n, dtype=np.float32):
    """The values 0, 1, 2, ... in an array that owns its memory (no view), which the allocator put 64-byte aligned."""
    tried = []  # kept alive until one is found, so the allocator hands out other addresses
    for _ in range(1000):
        x = np.empty(n, dtype)
        if x.ctypes.data % 64 == 0:
            x[:] = np.arange(n)
            return x
        tried.append(x)
    raise RuntimeError("the allocator gave no 64-byte-aligned array in 1000 tries")


def read_only_view(n, dtype=np.float32):
    """A read-only view of an aligned array, and that array (which can still be written)."""
    base = aligned_values(n, dtype)
    view = base.view()
    view.flags.writeable = False
    return view, base


def check_frozen_read_only_view(frozen_put, n, label):
    """frozen_put of a read-only view of an aligned array, then a write to that array (its base)."""
    view, base = read_only_view(n)
    before = np.array(view)
    out = _result(checks.runs(_one(lambda: frozen_put(view)), what=f"frozen_put({label})"))
    base[...] = base + 1
    checks.close(out, jnp.asarray(before), what=f"{label} after the array it views was changed in place",
                 hint="a read-only view can still change: its base is writeable. Copy x on the host whatever its flags")


@jax.jit
def _busy_work(a):
    """Matrix products that keep the CPU device's threads busy for a tenth of a second or so."""
    return jax.lax.fori_loop(0, 10, lambda i, a: jnp.tanh(a @ a), a)


def shown_behind_busy_device(frozen_put, kinds, tries=3):
    """For each kind of x (a name, and a function making a fresh x and the array a write goes to, x itself or
    the base of a read-only view): in how many of `tries` calls frozen_put(x), made while the device is busy
    with earlier work, a write made right after the call shows in the result.

    Each kind is put once first, untimed, so that nothing the answer compiles is compiled during the tries.
    In each try two computations are queued, then every kind is put and written to, and only then are the
    results read (reading one would wait for the device)."""
    load = jnp.full((512, 512), 1e-3, jnp.float32)
    _busy_work(load).block_until_ready()  # compiled now, so that each try only queues work
    for make in kinds.values():
        jax.block_until_ready(frozen_put(make()[0]))
    shown = dict.fromkeys(kinds, 0)
    for _ in range(tries):
        pending = [_busy_work(load), _busy_work(load)]
        made = []
        for name, make in kinds.items():
            x, target = make()
            before = np.array(x)
            out = frozen_put(x)
            target[...] = target + 1  # right after frozen_put returns
            made.append((name, out, before))
        for name, out, before in made:
            got = np.asarray(out)
            shown[name] += int(not np.array_equal(got, before.astype(got.dtype)))
        jax.block_until_ready(pending)
    return shown


def itself(make):
    """A kind of x for `shown_behind_busy_device` whose writes go to x itself."""
    def fresh():
        x = make()
        return x, x
    return fresh


def exercise2(frozen_put) -> None:
    """frozen_put keeps x's default dtype for every dtype, shape and alignment, and no later write to x shows in
    its result: x aligned or not, owning its memory or a read-only view, the device busy or not, call after call."""
    check_frozen(frozen_put, aligned_values(256), "an aligned float32 array")
    check_frozen(frozen_put, aligned_values(41)[1:], "an unaligned float32 array")
    check_frozen(frozen_put, aligned_values(6, np.uint8).reshape(2, 3), "an aligned uint8 (2, 3) array")
    check_frozen(frozen_put, aligned_values(12, np.int32).reshape(3, 4), "an aligned int32 matrix")
    check_frozen(frozen_put, aligned_values(16, np.float16).reshape(4, 4), "an aligned float16 matrix")
    check_frozen(frozen_put, aligned_values(8, jnp.bfloat16), "an aligned bfloat16 vector")
    check_frozen(frozen_put, aligned_values(5, np.bool_), "an aligned bool vector")
    check_frozen(frozen_put, aligned_values(8, np.float64), "an aligned float64 vector")
    check_frozen(frozen_put, aligned_values(1).reshape(()), "an aligned 0-d float32 array")
    check_frozen(frozen_put, aligned_values(1, np.uint8).reshape(()), "an aligned 0-d uint8 array")
    check_frozen(frozen_put, aligned_values(0).reshape(0, 3), "an empty (0, 3) array")
    check_frozen(frozen_put, owning_aligned(64), "an aligned float32 array that owns its memory (not a view)")
    for dtype in (np.int8, np.int16, np.uint16, np.uint32, np.complex64):
        check_frozen(frozen_put, aligned_values(8, dtype), f"an aligned {np.dtype(dtype).name} vector")
    check_frozen_read_only_view(frozen_put, 64, "a read-only view of an aligned float32 array")
    busy = {"float32": itself(lambda: aligned_values(256)), "uint8 (2, 3)": itself(lambda: aligned_values(6, np.uint8).reshape(2, 3)),
            **{np.dtype(t).name: itself(lambda t=t: aligned_values(8, t))
               for t in (np.int8, np.int16, np.int32, np.uint16, np.uint32, np.float16, jnp.bfloat16, np.bool_, np.complex64, np.float64)},
            "0-d float32": itself(lambda: aligned_values(1).reshape(())),
            "0-d uint8": itself(lambda: aligned_values(1, np.uint8).reshape(())),
            "unaligned float32": itself(lambda: aligned_values(41)[1:]),
            "float32 owning its memory": itself(lambda: owning_aligned(64)),
            "read-only view": lambda: read_only_view(64)}
    shown = shown_behind_busy_device(frozen_put, busy)
    checks.equal([name for name in busy if shown[name]], [],
                 what="the kinds of x (of 17: every dtype named, 0-d, unaligned, owning its memory, a read-only view) for which "
                      "a write made right after frozen_put(x) returned, while the device was busy with earlier work, showed "
                      "in the result",
                 hint="a copy queued on the device (jnp.array(x), jnp.asarray(x), device_put then an operation) reads x only when "
                      "it runs: copy x on the host first, with np.array(x), whatever its dtype, shape or flags")
    kinds = {"an int8 vector": np.arange(3, dtype=np.int8), "an int16 vector": np.arange(3, dtype=np.int16),
             "an int64 vector": np.arange(3, dtype=np.int64), "a uint64 vector": np.arange(3, dtype=np.uint64),
             "a complex128 vector": np.arange(3, dtype=np.complex128), "a bfloat16 vector": np.arange(3).astype(jnp.bfloat16),
             "an empty (0, 2) int32 array": np.zeros((0, 2), np.int32), "an empty bool vector": np.zeros(0, bool),
             "a 0-d uint8 array": np.full((), 7, np.uint8), "a 0-d float16 array": np.ones((), np.float16)}
    for name, v in kinds.items():
        got = _result(checks.runs(_one(lambda: frozen_put(v)), what=f"frozen_put({name})"))
        checks.equal((str(getattr(got, "dtype", None)), getattr(got, "weak_type", None)), (str(jnp.asarray(v).dtype), False),
                     what=f"frozen_put({name}): (its dtype, whether it is weakly typed)",
                     hint="the dtype JAX gives x by default, what jnp.asarray(x) has (uint64 becomes uint32, int8 stays int8), "
                          "also for empty and 0-d arrays: no dtype map of your own, no x.item(), no jnp.zeros(x.shape)")
    changing = np.arange(5.0, dtype=np.float32)  # float32: device_put keeps it as it is, and may use its buffer
    with aligned_next_allocation(changing.nbytes):  # a staging buffer made in this call is aligned: device_put keeps it
        first = frozen_put(changing)
    changing[0] = 99.0
    checks.equal(float(frozen_put(changing)[0]), 99.0, what="frozen_put(x)[0] for a second call after x[0] = 99",
                 hint="copy x on every call: a result kept by id(x) is stale once x changes")
    frozen_put(np.full(5, 7.0, np.float32))
    del changing
    gc.collect()
    junk = litter(5 * 4 + 64)
    checks.equal(np.asarray(first).tolist(), [0.0, 1.0, 2.0, 3.0, 4.0],
                 what="the first call's result, read after x[0] = 99, two more calls with arrays of its shape, del x, "
                      "gc.collect() and new allocations",
                 hint="make a new host copy in every call: device_put may keep using a buffer you hand it, so a staging "
                      "buffer reused by a later call changes the earlier result")
    del junk


# ---- Exercise 3 ----------------------------------------------------------------------------------------------


def check_leaf(got, original, label):
    """`got`, the result's leaf for the jax.Array `original`: a writeable NumPy array of its own, with its values and dtype."""
    before = np.array(original)  # the JAX array's values, to see whether writing into its copy changes them
    checks.equal(type(got), np.ndarray, what=f"{label}: the type it becomes (a NumPy array)",
                 hint="convert every jax.Array leaf, however deep and whatever its shape, with np.array")
    checks.close(got, before, what=label, hint="np.array(leaf) keeps the leaf's shape and dtype: no astype, no tolist")
    check_writes(got, 99, f"{label}: writing 99 into its first element",
                 hint="it should be writeable: np.asarray and jax.device_get give read-only views of the JAX buffer")
    checks.close(np.asarray(original), before, what=f"{label}: the JAX array after writing 99 into its copy",
                 hint="the copy shares memory with the JAX array; copy it")


def check_key_leaf(got, key, label):
    """`got`, the result's leaf for the typed key (or batch of keys) `key`: its key data, as a writeable NumPy array of its own."""
    data = np.asarray(jax.random.key_data(key))
    checks.equal(type(got), np.ndarray, what=f"{label}: the type it becomes (a NumPy array)",
                 hint="jax.random.key_data gives a key's raw uint32 data; copy it with np.array")
    checks.close(got, data, what=label, hint="jax.random.key_data gives a key's raw uint32 data")
    check_writes(got, 99, f"{label}: writing 99 into its first element",
                 hint="the key data should be writeable: copy it with np.array")


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Layer:
    """A registered dataclass: a pytree node whose fields are its children."""

    w: jax.Array
    b: jax.Array


Pair = collections.namedtuple("Pair", "left right")


def exercise3(to_host_tree) -> None:
    """to_host_tree copies every jax.Array leaf (0-d, empty, bfloat16, keys of every implementation) into a writeable
    NumPy array of its own, returns every other leaf as it is, and keeps the structure of every kind of node."""
    host = np.arange(3.0)
    host.flags.writeable = False
    tree = {"w": jnp.arange(6.0).reshape(2, 3), "step": 3, "name": "run-1", "host": host,
            "layers": [(jnp.arange(4, dtype=jnp.int32), jnp.float32(2.5))],
            "half": jnp.array([1.5, -2.0, 0.25], jnp.bfloat16), "legacy": jax.random.PRNGKey(5)}
    out = _result(checks.runs(_one(lambda: to_host_tree(tree)), what="to_host_tree(tree)",
                              hint="convert jax.Array leaves only: every other leaf (a number, a string, a NumPy array) comes back as it is"))
    checks.equal(jax.tree.structure(out), jax.tree.structure(tree), what="the structure of to_host_tree(tree)",
                 hint="let jax.tree.map walk the tree: it rebuilds every kind of pytree node")
    out = out if isinstance(out, dict) else {}
    check_leaf(out.get("w"), tree["w"], "tree['w'], a float32 matrix")
    check_leaf(out.get("layers", [[None, None]])[0][0], tree["layers"][0][0], "tree['layers'][0][0], an int32 vector")
    check_leaf(out.get("layers", [[None, None]])[0][1], tree["layers"][0][1], "tree['layers'][0][1], a 0-d float32 array")
    check_leaf(out.get("half"), tree["half"], "tree['half'], a bfloat16 vector")
    check_leaf(out.get("legacy"), tree["legacy"], "tree['legacy'], a legacy uint32 jax.random.PRNGKey (a plain array)")
    checks.equal([out.get("step"), out.get("name")], [3, "run-1"], what="the non-array leaves tree['step'] and tree['name']",
                 hint="a number or a string should be returned unchanged")
    checks.equal(out.get("host") is host, True, what="whether tree['host'], a read-only NumPy array, comes back as the very same object",
                 hint="return NumPy leaves as they are, read-only or not, without copying them")
    again = to_host_tree(tree)
    checks.equal(float(np.asarray(again["w"]).flat[0]), 0.0,
                 what="tree['w'][0, 0] in a second to_host_tree(tree), after 99 was written into the first result's",
                 hint="each call returns arrays of its own: do not keep the copies of an earlier call and hand them out again")
    twice = jnp.arange(4.0)
    both = _result(checks.runs(_one(lambda: to_host_tree({"a": twice, "b": twice})),
                               what="to_host_tree({'a': x, 'b': x}), one jax.Array at two leaves"))
    both = both if isinstance(both, dict) else {}
    checks.equal(bool(np.shares_memory(both.get("a"), both.get("b"))) if all(isinstance(both.get(k), np.ndarray) for k in "ab") else None,
                 False, what="whether the two leaves of to_host_tree({'a': x, 'b': x}) share memory",
                 hint="every leaf gets a copy of its own, also where one array sits at two leaves: keep no copy to hand out again")
    nodes = {"pair": Pair(jnp.arange(3.0), 4), "ordered": collections.OrderedDict(z=jnp.ones(2, jnp.int32), a=None),
             "layer": Layer(jnp.eye(2), jnp.zeros(2))}
    hint = "let jax.tree.map walk the tree: it rebuilds every kind of pytree node, registered classes included"
    shaped = _result(checks.runs(_one(lambda: to_host_tree(nodes)),
                                 what="to_host_tree(a tree holding a namedtuple, an OrderedDict and a registered dataclass)", hint=hint))
    checks.equal(jax.tree.structure(shaped), jax.tree.structure(nodes),
                 what="the structure of to_host_tree(a tree holding a namedtuple, an OrderedDict and a registered dataclass)", hint=hint)
    checks.equal([type(v) for v in jax.tree.leaves(shaped)], [np.ndarray, np.ndarray, np.ndarray, np.ndarray, int],
                 what="the types of the leaves of that tree (the dataclass's w and b, the OrderedDict's z, the namedtuple's left and right)",
                 hint="a registered dataclass is a pytree node too: its jax.Array fields are leaves to convert")
    keyed = {"key": jax.random.key(3), "rbg": jax.random.key(3, impl="rbg"), "unsafe": jax.random.key(3, impl="unsafe_rbg"),
             "batch": jax.random.split(jax.random.key(0), 3)}
    out = _result(checks.runs(_one(lambda: to_host_tree(keyed)),
                              what="to_host_tree(keys of the threefry, rbg and unsafe_rbg implementations, and a batch of 3 keys)",
                              hint="a typed key cannot become a NumPy array (section 6): find keys of every implementation and shape "
                                   "with jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key) and take jax.random.key_data first"))
    out = out if isinstance(out, dict) else {}
    check_key_leaf(out.get("key"), keyed["key"], "a typed key leaf (threefry)")
    check_key_leaf(out.get("rbg"), keyed["rbg"], "an rbg key leaf (4 uint32 words)")
    check_key_leaf(out.get("unsafe"), keyed["unsafe"], "an unsafe_rbg key leaf (4 uint32 words)")
    check_key_leaf(out.get("batch"), keyed["batch"], "a batch of 3 keys from jax.random.split (key data of shape (3, 2))")
    base = np.arange(5.0)
    view, scalar = base[1:], np.float32(3.0)
    mixed = {"empty": jnp.zeros((0, 3)), "view": view, "scalar": scalar}
    out = _result(checks.runs(_one(lambda: to_host_tree(mixed)), what="to_host_tree of an empty JAX array, a NumPy view and a NumPy scalar"))
    out = out if isinstance(out, dict) else {}
    empty = out.get("empty")
    checks.equal([type(empty), np.shape(empty), getattr(getattr(empty, "flags", None), "writeable", None)],
                 [np.ndarray, (0, 3), True], what="an empty (0, 3) JAX leaf: [its type, its shape, whether it is writeable]",
                 hint="np.array(leaf) for every JAX leaf, an empty one too: its shape and a writeable array of its own")
    checks.equal([out.get("view") is view, out.get("scalar") is scalar], [True, True],
                 what="whether a NumPy view leaf and a NumPy scalar leaf come back as the very same objects",
                 hint="convert jax.Array leaves only (isinstance(leaf, jax.Array)); every other leaf comes back as it is")
