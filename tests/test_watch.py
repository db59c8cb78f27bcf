"""grader.watch: the call watcher that checks use to see which functions an answer ran."""

from __future__ import annotations

import functools
import sys
import threading

import jax
import jax.numpy as jnp
import pytest

from grader import watch


def _free_tool_ids() -> list[int]:
    return [i for i in range(6) if sys.monitoring.get_tool(i) is None]


def _scaled(x, k):
    return x * k


def test_sees_a_call_by_the_function_however_it_was_named_and_in_another_thread():
    """Does the watcher see calls of a function by the object called, from this thread and another?"""
    from jax import vjp as renamed

    seen = []

    def on_call(caller, fn):
        if fn is jax.vjp and not watch.from_jax(caller):
            seen.append(caller.co_name)

    def in_a_thread():
        jax.vjp(jnp.sin, 1.0)

    with watch.calls(on_call):
        renamed(jnp.sin, 1.0)
        worker = threading.Thread(target=in_a_thread)
        worker.start()
        worker.join()
        jax.grad(jnp.sin)(1.0)  # calls jax.vjp from JAX's own code, which on_call leaves out
    assert seen == ["test_sees_a_call_by_the_function_however_it_was_named_and_in_another_thread", "in_a_thread"]


def test_from_jax_tells_jax_code_from_other_code():
    """Is a JAX function's code JAX's own, and a test's code not?"""
    assert watch.from_jax(jax.vjp.__code__)
    assert not watch.from_jax(test_from_jax_tells_jax_code_from_other_code.__code__)


def test_starts_of_sees_a_function_reached_from_c():
    """Does starts_of see a Python function that C code calls (a functools.partial run by map), which no call event shows?"""
    calls, starts = [], []

    def on_call(caller, fn):
        (starts if caller is None else calls).append(fn)

    with watch.calls(on_call, starts_of=_scaled):
        assert list(map(functools.partial(_scaled, k=3), [1, 2])) == [3, 6]
    assert starts == [_scaled, _scaled]
    assert _scaled not in calls  # map called it from C: only its starts show it


def test_gives_its_tool_id_back_also_when_the_block_raises():
    """Is the sys.monitoring tool id free again after the block, also after an exception inside it?"""
    before = _free_tool_ids()
    with pytest.raises(ValueError, match="inside"):
        with watch.calls(lambda caller, fn: None, starts_of=_scaled):
            assert len(_free_tool_ids()) == len(before) - 1
            raise ValueError("raised inside the block")
    assert _free_tool_ids() == before
    seen = []
    _scaled(1, 1)
    with watch.calls(lambda caller, fn: seen.append(fn) if fn is _scaled else None):
        _scaled(1, 1)
    assert seen == [_scaled]  # a second watcher works, and the first saw nothing after its block


def test_says_what_to_do_when_every_tool_id_is_taken():
    """With every sys.monitoring tool id in use, does the watcher say so, and what to do, instead of failing later?"""
    taken = _free_tool_ids()
    for tool in taken:
        sys.monitoring.use_tool_id(tool, "test holder")
    try:
        with pytest.raises(RuntimeError, match="every sys.monitoring tool id is in use .* run it without that tool"):
            with watch.calls(lambda caller, fn: None):
                pass
    finally:
        for tool in taken:
            sys.monitoring.free_tool_id(tool)


def test_host_functions_are_the_objects_the_answer_gave_to_jax():
    """Does host_functions return each host function a pure_callback or io_callback ran, once, and nothing of JAX's?"""
    import numpy as np
    from jax.experimental import io_callback

    def numpy_host(a):
        return np.asarray(a) * 2

    scaled_host = functools.partial(_scaled, k=np.float32(3))
    spec = jax.ShapeDtypeStruct((3,), jnp.float32)

    def program(x):
        y = jax.pure_callback(numpy_host, spec, x)
        y = jax.pure_callback(numpy_host, spec, y)   # the same host function again: listed once
        return io_callback(scaled_host, spec, y)

    x = jnp.arange(3.0)
    hosts = watch.host_functions(lambda: jax.jit(program)(x))
    assert hosts == [numpy_host, scaled_host]
    assert hosts[1] is scaled_host
    assert watch.host_functions(lambda: jnp.sin(x)) == []   # no callback, no host function
