"""The C++ build helper: caching, atomic concurrent builds, readable errors, FFI registration."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from grader import builder as build_module
from grader.builder import (BuildError, CompilerNotFoundError, RegistrationError, build,
                          find_compiler)

def test_copying_the_cache_during_a_build_takes_the_finished_libraries_and_nothing_half_made(build_cache, tmp_path, monkeypatch):
    """Can a build cache be copied while another process builds into it (as a test's kernel copies the
    shared cache while other tests build)? The copy has every finished library and nothing of the
    build under way, and that build still finishes."""
    import threading

    done = build(code=ADD, name="finished")
    # A compiler that waits, mid-build, until the test lets it go on.
    real = next(path for path in map(shutil.which, build_module.COMPILER_CANDIDATES) if path)
    started, release = tmp_path / "started", tmp_path / "release"
    wrapper = tmp_path / "held-c++"
    wrapper.write_text(f'#!/bin/sh\nif [ "$1" != --version ]; then touch "{started}";'
                       f' while [ ! -e "{release}" ]; do sleep 0.05; done; fi\nexec "{real}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("CXX", str(wrapper))
    outcome: list[object] = []
    worker = threading.Thread(target=lambda: outcome.append(build(code=ADD + "// held\n", name="held")))
    worker.start()
    try:
        for _ in range(600):
            if started.exists():
                break
            threading.Event().wait(0.05)
        assert started.exists(), "the held build never reached its compiler"
        in_progress = sorted(p.name for p in build_cache.iterdir() if p.name.startswith("held") or p.name.startswith(".held"))
        assert any(name.startswith(".held-") for name in in_progress), in_progress  # its scratch folder

        copy = tmp_path / "copy"
        build_module.copy_cache(build_cache, copy)
    finally:
        release.touch()
        worker.join(timeout=120)
    assert sorted(p.name for p in copy.iterdir()) == [done.path.name]
    assert (copy / done.path.name).read_bytes() == done.path.read_bytes()
    # The held build finished after the copy, and its scratch folder is gone, as the copy would have found.
    assert len(outcome) == 1 and outcome[0].path.exists(), outcome
    assert not any(p.name.startswith(".held-") for p in build_cache.iterdir())


ADD = 'extern "C" double add_twice(double x, double y) { return x + 2.0 * y; }'

SCALE_FFI = textwrap.dedent("""
    #include "xla/ffi/api/ffi.h"
    namespace ffi = xla::ffi;

    // Multiplies every element by a factor fixed at compile time.
    static ffi::Error ScaleImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
      for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = FACTOR * x.typed_data()[i];
      return ffi::Error::Success();
    }

    XLA_FFI_DEFINE_HANDLER_SYMBOL(Scale, ScaleImpl,
                                  ffi::Ffi::Bind()
                                      .Arg<ffi::Buffer<ffi::F32>>()  // x
                                      .Ret<ffi::Buffer<ffi::F32>>()  // y
    );
""")


def counting_compiler(tmp_path: Path, delay: float = 0.0, name: str = "counting-c++") -> Path:
    """A compiler wrapper that records each call in calls.log (after `delay` seconds for a
    compile), then runs the real compiler."""
    # The real compiler, found without $CXX (which may name another wrapper already).
    real = next(path for path in map(shutil.which, build_module.COMPILER_CANDIDATES) if path)
    log = tmp_path / "calls.log"
    wrapper = tmp_path / name
    wrapper.write_text(f'#!/bin/sh\nif [ "$1" != --version ]; then sleep {delay}; fi\n'
                       f'echo "$@" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return wrapper


def compiles(tmp_path: Path) -> int:
    log = tmp_path / "calls.log"
    # `--version` calls identify the compiler for the cache key; they do not compile.
    return sum(1 for line in log.read_text().splitlines() if line != "--version") if log.exists() else 0


def test_code_from_a_cell_builds_and_runs_through_ctypes(build_cache):
    """Does C++ text compile into a library whose function ctypes can call?"""
    lib = build(code=ADD, name="add")
    fn = lib.function("add_twice", argtypes=[ctypes.c_double, ctypes.c_double], restype=ctypes.c_double)
    assert fn(1.0, 3.0) == 7.0
    assert lib.path.parent == build_cache and not lib.cached


def test_loading_a_library_that_turns_on_flush_to_zero_warns_and_a_plain_one_does_not(build_cache):
    """Does loading a library built with -ffast-math, which turns on flush-to-zero for the whole process, say so, and
    loading one built without it say nothing? Run in a process of its own: the first changes its process for good."""
    child = textwrap.dedent("""
        import ctypes, sys, warnings
        from grader.builder import build, keeps_subnormals
        code = 'extern "C" double cube(double x) { return x * x * x; }'
        warnings.simplefilter("error")   # a warning fails the plain load below
        build(code=code, name="plain_cube").cdll
        assert keeps_subnormals()
        try:
            build(code=code, name="fast_cube", flags=("-ffast-math",)).cdll
        except RuntimeWarning as warning:
            print(warning)
        print("keeps subnormals:", keeps_subnormals())
    """)
    run = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "JBJ_BUILD_CACHE": str(build_cache)})
    assert run.returncode == 0, run.stderr
    assert "loading the library 'fast_cube' turned on flush-to-zero" in run.stdout, run.stdout
    assert run.stdout.strip().endswith("keeps subnormals: False"), run.stdout


def test_a_cpp_file_builds_with_the_course_headers(build_cache):
    """Does a file in cpp/ build, finding both cpp/ headers and jax.ffi.include_dir()?"""
    lib = build("ffi_rms_norm.cc")
    assert lib.name == "ffi_rms_norm" and lib.path.exists()


def test_second_build_does_not_run_the_compiler(build_cache, tmp_path, monkeypatch):
    """Is a repeated build served from the cache without invoking the compiler?"""
    monkeypatch.setenv("CXX", str(counting_compiler(tmp_path)))
    first = build(code=ADD, name="add")
    second = build(code=ADD, name="add")
    assert compiles(tmp_path) == 1
    assert not first.cached and second.cached and first.path == second.path


@pytest.mark.parametrize("change", ["source", "flags"])
def test_cache_key_follows_source_and_flags(build_cache, tmp_path, monkeypatch, change):
    """Does changing the source or the flags give a new build?"""
    monkeypatch.setenv("CXX", str(counting_compiler(tmp_path)))
    first = build(code=ADD, name="add")
    second = build(code=ADD + "\n// changed\n", name="add") if change == "source" else build(code=ADD, name="add", flags=("-O0",))
    assert compiles(tmp_path) == 2 and first.path != second.path


def _build_in_child(cache: str, cxx: str, barrier, queue) -> None:
    os.environ["JBJ_BUILD_CACHE"] = cache
    os.environ["CXX"] = cxx
    barrier.wait(timeout=60)
    try:
        lib = build(code=ADD + "\n// concurrent\n", name="concurrent")
        fn = lib.function("add_twice", argtypes=[ctypes.c_double, ctypes.c_double], restype=ctypes.c_double)
        queue.put(("ok", str(lib.path), fn(1.0, 1.0)))
    except Exception as err:  # reported to the parent, which fails the test with it
        queue.put(("error", repr(err), None))


def test_concurrent_builds_of_the_same_source_both_succeed(build_cache, tmp_path):
    """Do two processes building the same new source at once both succeed, with one compile between them?"""
    # A compiler slowed by a second makes the two builds overlap for certain.
    cxx = counting_compiler(tmp_path, delay=1.0)
    ctx = multiprocessing.get_context("spawn")
    queue, barrier = ctx.Queue(), ctx.Barrier(2)
    procs = [ctx.Process(target=_build_in_child, args=(str(build_cache), str(cxx), barrier, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert [r[0] for r in results] == ["ok", "ok"], results
    assert results[0][1] == results[1][1] and results[0][2] == results[1][2] == 3.0
    assert compiles(tmp_path) == 1, "the second build should wait for the first and reuse it"
    # Nothing half-written is left behind: one library, no scratch folders.
    assert sorted(p.suffix for p in build_cache.iterdir() if not p.name.endswith(".lock")) == [".so"]


def test_compile_error_is_short_and_has_line_numbers(build_cache):
    """Does a compile error come back as a few readable lines naming the line of the mistake?"""
    broken = 'extern "C" int f(int x) {\n  int y = x +;\n  return undefined_name;\n}\n'
    with pytest.raises(BuildError) as info:
        build(code=broken, name="broken")
    message = str(info.value)
    lines = message.splitlines()
    assert lines[0] == "C++ build of 'broken' failed:"
    assert 2 <= len(lines) <= 1 + build_module.MAX_ERROR_LINES
    assert "broken.cc:2:" in message and "error" in message and "undefined_name" in message
    assert "/" not in lines[1].split("broken.cc")[0], "the scratch folder's path should be stripped"
    rendered = info.value._render_traceback_()
    assert rendered[0].startswith("❌ C++ build") and len(rendered) == len(lines)


def test_missing_compiler_is_named_with_the_fix(build_cache, monkeypatch, tmp_path):
    """With no compiler on PATH, is the error a CompilerNotFoundError that says what to install?"""
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no g++, c++ or clang++
    with pytest.raises(CompilerNotFoundError) as info:
        build(code=ADD, name="add")
    assert "No C++ compiler found" in str(info.value) and "apt-get install g++" in str(info.value)


def test_cxx_naming_a_missing_program_is_reported(build_cache, monkeypatch):
    """Does a $CXX that does not exist say so, rather than falling back silently?"""
    monkeypatch.setenv("CXX", "no-such-compiler-here")
    with pytest.raises(CompilerNotFoundError, match="no-such-compiler-here"):
        build(code=ADD, name="add")


@pytest.mark.slow
def test_a_compile_error_in_a_notebook_cell_shows_the_compiler_lines_not_a_traceback(build_cache, tmp_path):
    """In a real kernel, does a learner's cell whose C++ does not compile show the compiler's first
    error lines (file and line number) in a few lines, with no Python traceback?"""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from notebook_runner import errors, execute

    broken = 'handler = r"""\n#include "xla/ffi/api/ffi.h"\nstatic int Impl( { return 1; }\n"""\n'
    nb = new_notebook(cells=[new_code_cell("import grader\ngrader.setup_notebook()"),
                             new_code_cell(broken + 'grader.build(code=handler, name="my_handler")')])
    found = errors(execute(nb, tmp_path))
    assert [e.index for e in found] == [1], found
    text = found[0].text
    assert found[0].ename == "BuildError" and text.startswith("❌ C++ build of 'my_handler' failed:"), text
    assert "my_handler.cc:3:" in text and "error:" in text, text
    assert "Traceback" not in text and "File " not in text and len(text.splitlines()) <= 6, text


def test_ffi_handler_runs_under_jit_and_registration_is_idempotent(build_cache):
    """Does a real FFI handler build, register (twice, harmlessly) and run under jit?"""
    lib = build("ffi_rms_norm.cc")
    assert lib.register_ffi_target("rms_norm") == "rms_norm"
    lib.register_ffi_target("rms_norm")  # the same library again: nothing happens
    again = build("ffi_rms_norm.cc")
    again.register_ffi_target("rms_norm")  # a cached copy of the same build: still fine

    def rms_norm(x, eps=1e-5):
        call = jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")
        return call(x, eps=np.float32(eps))

    x = jnp.linspace(-2.0, 3.0, 24, dtype=jnp.float32).reshape(4, 6)
    expected = x / jnp.sqrt(jnp.mean(x**2, axis=-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(jax.jit(rms_norm)(x), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(rms_norm)(x[None]), expected[None], rtol=1e-6)


def test_registering_a_different_build_under_a_taken_name_is_refused(build_cache):
    """Is a changed handler under an existing target name refused with a message saying what to do?"""
    two = build(code=SCALE_FFI.replace("FACTOR", "2.0f"), name="scale")
    three = build(code=SCALE_FFI.replace("FACTOR", "3.0f"), name="scale")
    two.register_ffi_target("scale_test", "Scale")
    with pytest.raises(RegistrationError, match="new name"):
        three.register_ffi_target("scale_test", "Scale")
    three.register_ffi_target("scale_test_v2", "Scale")
    out = jax.ffi.ffi_call("scale_test_v2", jax.ShapeDtypeStruct((3,), jnp.float32))(jnp.ones(3, jnp.float32))
    np.testing.assert_array_equal(out, np.full(3, 3.0, np.float32))


def test_a_name_taken_directly_through_jax_is_refused_with_the_same_advice(build_cache):
    """Is a name registered with jax.ffi directly (which this helper never saw) refused in the course's words?"""
    two = build(code=SCALE_FFI.replace("FACTOR", "2.0f"), name="scale")
    four = build(code=SCALE_FFI.replace("FACTOR", "4.0f"), name="scale")
    jax.ffi.register_ffi_target("scale_direct", jax.ffi.pycapsule(two.cdll.Scale), platform="cpu")
    with pytest.raises(RegistrationError, match="registered elsewhere in this process.*new name"):
        four.register_ffi_target("scale_direct", "Scale")
    out = jax.ffi.ffi_call("scale_direct", jax.ShapeDtypeStruct((3,), jnp.float32))(jnp.ones(3, jnp.float32))
    np.testing.assert_array_equal(out, np.full(3, 2.0, np.float32))  # the first handler still answers


def test_unknown_symbol_is_reported(build_cache):
    """Does asking for a handler the library does not export say so in a line?"""
    lib = build(code=SCALE_FFI.replace("FACTOR", "2.0f"), name="scale")
    with pytest.raises(RegistrationError, match="no exported symbol 'Missing'"):
        lib.register_ffi_target("missing_target", "Missing")


def test_bad_arguments_are_rejected(build_cache):
    """Are a missing file, both or neither inputs, and an unsafe name each a clear error?"""
    with pytest.raises(build_module.SourceNotFoundError, match="not_here.cc"):
        build("not_here.cc")
    with pytest.raises(TypeError):
        build()
    with pytest.raises(TypeError, match="tuples"):
        build(code=ADD, name="add", flags="-O3")
    with pytest.raises(ValueError, match="may only use"):
        build(code=ADD, name="../escape")


def test_default_cache_is_in_the_users_cache_folder(monkeypatch, tmp_path):
    """Without $JBJ_BUILD_CACHE, do builds go under $XDG_CACHE_HOME?"""
    monkeypatch.delenv("JBJ_BUILD_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert build_module.cache_dir() == tmp_path / "jax-beyond-jnp" / "cpp"
    lib = build(code=ADD, name="add")
    assert lib.path.parent == tmp_path / "jax-beyond-jnp" / "cpp"


def test_cache_key_follows_the_compiler_and_the_headers(build_cache, tmp_path, monkeypatch):
    """Does another compiler, or an edited header in include_dirs, give a new build?"""
    include = tmp_path / "include"
    include.mkdir()
    (include / "twice.h").write_text("inline double twice(double y) { return 2.0 * y; }\n")
    source = '#include "twice.h"\nextern "C" double add_twice(double x, double y) { return x + twice(y); }\n'
    monkeypatch.setenv("CXX", str(counting_compiler(tmp_path, name="first-c++")))
    first = build(code=source, name="hdr", include_dirs=(include,))
    monkeypatch.setenv("CXX", str(counting_compiler(tmp_path, name="second-c++")))
    second = build(code=source, name="hdr", include_dirs=(include,))
    (include / "twice.h").write_text("inline double twice(double y) { return 3.0 * y; }\n")
    third = build(code=source, name="hdr", include_dirs=(include,))
    assert len({first.path, second.path, third.path}) == 3 and compiles(tmp_path) == 3
    fn = third.function("add_twice", argtypes=[ctypes.c_double, ctypes.c_double], restype=ctypes.c_double)
    assert fn(1.0, 1.0) == 4.0


def test_a_source_file_finds_headers_beside_it_and_may_have_spaces_in_its_name(build_cache, tmp_path):
    """Does a .cc outside cpp/ include its neighbour header, and a file name with spaces still build?"""
    (tmp_path / "near.h").write_text("inline double near_value() { return 5.0; }\n")
    source = tmp_path / "my kernel.cc"
    source.write_text('#include "near.h"\nextern "C" double value() { return near_value(); }\n')
    lib = build(source)
    assert lib.name == "my_kernel"
    assert lib.function("value", argtypes=[], restype=ctypes.c_double)() == 5.0


def test_cxx_may_carry_arguments(build_cache, monkeypatch):
    """Does a $CXX such as "env g++" (a launcher and a compiler) work?"""
    monkeypatch.setenv("CXX", f"env {find_compiler()[0]}")
    assert build_module.find_compiler()[0].endswith("env")
    assert build(code=ADD, name="add").path.exists()


def test_ctypes_functions_handed_out_earlier_keep_their_types(build_cache):
    """Does asking for a function again with other types leave the first callable as it was?"""
    lib = build(code=ADD, name="add")
    good = lib.function("add_twice", argtypes=[ctypes.c_double, ctypes.c_double], restype=ctypes.c_double)
    lib.function("add_twice")  # no types: a void function
    again = build(code=ADD, name="add").function("add_twice")
    assert good(1.0, 2.0) == 5.0 and again is not good


LOOP = "void twice(float* x, int n) {\n  for (int i = 0; i < n; ++i) x[i] *= 2.0f;\n}\n"


@pytest.mark.skipif(shutil.which("g++") is None, reason="reads GCC's own report")
def test_a_compiler_report_is_gccs_and_asking_again_does_not_compile(build_cache, tmp_path, monkeypatch):
    """Does compiler_report return what GCC said about a source (its vectoriser notes, its dump
    files), once compiled, and the same again from the cache without running the compiler, while an
    edited source or other flags compile afresh? Does a source that does not compile raise BuildError?"""
    source = tmp_path / "loop.cc"
    source.write_text(LOOP)
    monkeypatch.setenv("CXX", str(counting_compiler(tmp_path)))
    flags = ("-O3", "-fopt-info-vec-optimized", "-fdump-tree-vect-details")
    first = build_module.compiler_report(source, flags)
    assert "loop.cc:2:" in first.stderr and "optimized: loop vectorized" in first.stderr, first.stderr
    assert any(name.endswith(".vect") and "loop.cc:2:" in text for name, text in first.dumps.items()), list(first.dumps)
    assert build_module.compiler_report(source, flags) == first and compiles(tmp_path) == 1
    assert "vectorized" not in build_module.compiler_report(source, ("-O0", "-fopt-info-vec-optimized")).stderr
    source.write_text(LOOP.replace("2.0f", "3.0f"))
    build_module.compiler_report(source, flags)
    assert compiles(tmp_path) == 3
    source.write_text("void broken( {\n")
    with pytest.raises(BuildError, match=r"C\+\+ compile of 'loop.cc' failed:\n  loop.cc:1:"):
        build_module.compiler_report(source, flags)


@pytest.mark.parametrize("code, takes", [
    ('#include "xla/ffi/api/ffi.h"\nint x;', True),
    ('// a comment\n/* and\n another */\n#pragma once\n#include <cmath>\n#include <xla/ffi/api/ffi.h>\n', True),
    ('#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\n', True),  # a course header
    ('#define EPS 1e-5f\n#include "xla/ffi/api/ffi.h"\n', False),  # a macro the header would see
    ('#include "my_own.h"\n#include "xla/ffi/api/ffi.h"\n', False),  # a header the course does not know
    ('int before;\n#include "xla/ffi/api/ffi.h"\n', False),  # code before it
    ('#include <cmath>\n// #include "xla/ffi/api/ffi.h"\n', False),  # no FFI header at all
])
def test_only_code_that_includes_the_ffi_header_first_takes_it_precompiled(code, takes):
    """Is the header put first only where that cannot change what the code means?"""
    assert build_module.takes_precompiled_header(code) is takes


#: Float math GCC may vectorise, contract into FMAs and inline differently at each level: a build
#: reading the compiled header must come out instruction for instruction like one reading it as text.
ROW_NORM_FFI = textwrap.dedent("""
    #include <cmath>
    #include "xla/ffi/api/ffi.h"
    namespace ffi = xla::ffi;

    static inline float SumSquares(const float* x, long n) {
      float acc[8] = {};
      for (long i = 0; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; ++j) acc[j] += x[i + j] * x[i + j];
      return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    }

    static ffi::Error RowNormImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
      const long n = x.dimensions().back(), rows = x.element_count() / n;
      for (long r = 0; r < rows; ++r) {
        const float s = 1.0f / std::sqrt(SumSquares(x.typed_data() + r * n, n) / n + 1e-5f);
        for (long i = 0; i < n; ++i) y->typed_data()[r * n + i] = x.typed_data()[r * n + i] * s + 0.5f;
      }
      return ffi::Error::Success();
    }

    XLA_FFI_DEFINE_HANDLER_SYMBOL(RowNorm, RowNormImpl,
                                  ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")


def _needs_gcc():
    if "clang" in build_module._compiler_identity(tuple(find_compiler())).lower():
        pytest.skip("the FFI header is precompiled for GCC only")


def _instructions(lib) -> list[str]:
    """A library's instructions, without addresses or symbol names, sorted (functions may be laid
    out in another order)."""
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(lib.path)], capture_output=True,
                             text=True, check=True).stdout
    lines = [line.split(":", 1)[1] for line in listing.splitlines() if re.match(r"\s+[0-9a-f]+:\t", line)]
    return sorted(re.sub(r"0x[0-9a-f]+|\b[0-9a-f]{4,}\b|<[^>]*>|#.*", "", line).strip() for line in lines)


def test_a_build_with_a_precompiled_flag_set_reads_the_header_compiled_and_makes_the_same_code(tmp_path, monkeypatch):
    """For each flag set the header is compiled for, does GCC read that compiled form (and no other),
    and is the library the same, instruction for instruction, as one built reading the header as
    text? Any other flags, or code with something of its own before the header, reads it as text."""
    _needs_gcc()
    folder = build_module.precompile_headers()
    assert build_module.precompile_headers() == folder  # a second call finds it there
    real_run = build_module.subprocess.run
    seen = {}

    def run_with_header_trace(cmd, **kwargs):  # -H: GCC names each header it reads, "!" for a compiled one
        proc = real_run([*cmd, "-H"] if cmd[-2:-1] == ["-o"] else cmd, **kwargs)
        if cmd[-2:-1] == ["-o"]:
            seen[os.environ["JBJ_BUILD_CACHE"]] = (cmd, proc.stderr)
        return proc

    monkeypatch.setattr(build_module.subprocess, "run", run_with_header_trace)
    x = jnp.linspace(-1.0, 1.0, 64, dtype=jnp.float32).reshape(4, 16)
    expected = x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-5) + 0.5
    for variant, flags in [*build_module.PCH_VARIANTS.items(), (None, ("-O3", "-march=native", "-DX=1")), (None, ("-O1",))]:
        monkeypatch.setenv("JBJ_BUILD_CACHE", str(tmp_path / f"compiled-{variant}-{len(flags)}"))
        lib = build(code=ROW_NORM_FFI, name="row_norm", flags=flags)
        cmd, trace = seen[os.environ["JBJ_BUILD_CACHE"]]
        compiled = [line for line in trace.splitlines() if line.startswith("! ")]
        if variant is None:
            assert "-include" not in cmd and compiled == [], (flags, cmd)
            continue
        assert compiled == [f"! {folder / variant / build_module.PCH_HEADER}.gch"], (flags, trace[:2000])
        target = lib.register_ffi_target(f"row_norm_pch_{variant}", "RowNorm")
        y = jax.jit(jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(x.shape, x.dtype)))(x)
        np.testing.assert_allclose(y, expected, rtol=1e-6)
        monkeypatch.setenv("JBJ_BUILD_CACHE", str(tmp_path / f"text-{variant}"))
        with monkeypatch.context() as m:
            m.setattr(build_module, "_pch_flags", lambda *args: [])
            as_text = build(code=ROW_NORM_FFI, name="row_norm", flags=flags)
        assert "-include" not in seen[os.environ["JBJ_BUILD_CACHE"]][0]
        assert _instructions(lib) == _instructions(as_text), f"{variant}: the compiled header changed the code"
    own_first = ROW_NORM_FFI.replace("#include <cmath>", "#include <cmath>\n#define ROWS 4")
    assert build_module._pch_flags(own_first, find_compiler(), ()) == []


def test_a_grading_kernel_reads_the_precompiled_ffi_header(tmp_path):
    """Can a sandboxed grading kernel's own user (nobody, when grading runs as root) read the
    compiled header, so that its builds take it too?"""
    from grader.autograde import sandbox

    if not sandbox.probe().sandboxed:
        pytest.fail(f"no sandbox on this machine: {sandbox.probe().reason}")
    _needs_gcc()
    build_module.precompile_headers()
    code = ("import os; from grader.notebook import build; "
            "print(os.getuid(), build._pch_flags('#include \"xla/ffi/api/ffi.h\"', build.find_compiler(), ()))")
    workdir = tmp_path / "kernel"
    workdir.mkdir(mode=0o700)
    proc = subprocess.run(sandbox.bwrap_argv(workdir, sandbox.kernel_env(workdir)) + [sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"'-include', '{build_module.PCH_HEADER}'" in proc.stdout, proc.stdout
