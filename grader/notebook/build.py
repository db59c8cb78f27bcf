"""Compile C++ sources into shared libraries for ctypes and XLA FFI, cached by content."""

from __future__ import annotations

import ctypes
import fcntl
import functools
import hashlib
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from grader.course import repo_root
from grader.errors import CourseError

#: Flags every build uses. C++17 is what the XLA FFI headers need.
DEFAULT_FLAGS = ("-std=c++17", "-O2", "-shared", "-fPIC")

#: Compilers tried in this order when $CXX is not set.
COMPILER_CANDIDATES = ("g++", "c++", "clang++")

#: How many compiler error lines a BuildError shows.
MAX_ERROR_LINES = 4

_INSTALL_HINT = (
    "Install one and run the cell again: `sudo apt-get install g++` (Debian/Ubuntu), "
    "`xcode-select --install` (macOS) or `conda install -c conda-forge cxx-compiler`; "
    "or point $CXX at a compiler you have."
)

# (target name, platform) -> (content key of the library, handler symbol) registered under it.
_REGISTERED: dict[tuple[str, str], tuple[str, str]] = {}
# Loaded libraries stay referenced here so their code is never unloaded while XLA may call it.
_LOADED: dict[str, ctypes.CDLL] = {}


class BuildError(CourseError):
    """The compiler rejected the source."""


class CompilerNotFoundError(CourseError):
    """No C++ compiler is available."""


class SourceNotFoundError(CourseError, FileNotFoundError):
    """The C++ source file named does not exist."""


class RegistrationError(CourseError):
    """An FFI target name is already taken by a different library."""


def cpp_dir() -> Path:
    """Where the course keeps its C++ sources and shared headers."""
    return repo_root() / "cpp"


def cache_dir() -> Path:
    """Where built libraries are kept: $JBJ_BUILD_CACHE, else the user's cache folder."""
    env = os.environ.get("JBJ_BUILD_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "jax-beyond-jnp" / "cpp"


def find_compiler() -> list[str]:
    """The command that runs the C++ compiler (e.g. ["/usr/bin/g++"], or ["ccache", "g++"] from
    $CXX), or raise CompilerNotFoundError."""
    wanted = os.environ.get("CXX", "").strip()
    if wanted:
        command = shlex.split(wanted)
        found = shutil.which(command[0])
        if found is None:
            raise CompilerNotFoundError(
                f"$CXX is set to {wanted!r}, but {command[0]!r} is not a program on PATH. {_INSTALL_HINT}"
            )
        return [found, *command[1:]]
    for name in COMPILER_CANDIDATES:
        found = shutil.which(name)
        if found:
            return [found]
    raise CompilerNotFoundError(
        f"No C++ compiler found (looked for {', '.join(COMPILER_CANDIDATES)}). {_INSTALL_HINT}"
    )


@functools.lru_cache(maxsize=None)
def _compiler_identity(command: tuple[str, ...]) -> str:
    """The compiler's command and first `--version` line, asked once per process."""
    out = subprocess.run([*command, "--version"], capture_output=True, text=True, check=False)
    first = out.stdout.splitlines()[0] if out.stdout else ""
    return " ".join(command) + "\n" + first


def _jax_identity() -> tuple[str, str]:
    import jax
    import jax.ffi

    return jax.__version__, jax.ffi.include_dir()


def keeps_subnormals() -> bool:
    """Whether this process's floating-point arithmetic keeps subnormal numbers: the smallest positive double times 1.0
    is itself, not 0 (flush-to-zero makes it 0). Read from the result's bits, which no FPU mode can change."""
    smallest = struct.unpack("<d", (1).to_bytes(8, "little"))[0]
    return struct.pack("<d", smallest * 1.0) != bytes(8)


@dataclass
class Library:
    """A built shared library: call its C functions through ctypes or register FFI handlers."""

    name: str
    path: Path
    key: str
    cached: bool
    _cdll: ctypes.CDLL | None = field(default=None, repr=False)

    @property
    def cdll(self) -> ctypes.CDLL:
        """The library loaded with ctypes (loaded once, kept alive for the process). Loading a library built with
        -ffast-math or -Ofast can turn on flush-to-zero for the whole process (GCC links code that does it into the
        library): when the process kept subnormal numbers before the load and no longer does, a warning says so."""
        if self._cdll is None:
            loaded = _LOADED.get(self.key)
            if loaded is None:
                kept = keeps_subnormals()
                loaded = ctypes.CDLL(str(self.path))
                if kept and not keeps_subnormals():
                    warnings.warn(f"loading the library {self.name!r} turned on flush-to-zero for this whole process "
                                  "(a library built with -ffast-math or -Ofast does that): every subnormal result is now 0, "
                                  "Python's own arithmetic included. Build it without those flags, then restart the kernel.",
                                  RuntimeWarning, stacklevel=3)
            self._cdll = _LOADED[self.key] = loaded
        return self._cdll

    def function(self, symbol: str, *, argtypes=None, restype=None):
        """A ctypes function from the library, with argument and result types set.

        `restype=None` (the default) declares a function that returns nothing (`void`).
        """
        # Indexing returns a new function object each time; getattr would share one per symbol,
        # so setting types here would change callables handed out earlier.
        fn = self.cdll[symbol]
        if argtypes is not None:
            fn.argtypes = list(argtypes)
        fn.restype = restype
        return fn

    def register_ffi_target(self, target: str, symbol: str | None = None, *, platform: str = "cpu") -> str:
        """Register handler `symbol` (default: `target` in CamelCase) as XLA FFI target `target`.

        Registering the same library under the same name again does nothing. A different
        library (say, after editing the C++) under a name already taken raises
        RegistrationError, because XLA keeps the first handler it was given for a name.
        """
        import jax.ffi

        symbol = symbol or "".join(part.capitalize() for part in target.split("_"))
        previous = _REGISTERED.get((target, platform))
        if previous == (self.key, symbol):
            return target
        if previous is not None:
            raise RegistrationError(
                f"FFI target {target!r} is already registered with another handler (another build or symbol), "
                "and XLA refuses a second handler for a name. Register the new build under a new name "
                f"(e.g. {target + '_v2'!r}), or restart the kernel."
            )
        try:
            fn = self.cdll[symbol]
        except AttributeError:
            raise RegistrationError(
                f"{self.name}: no exported symbol {symbol!r}. Did XLA_FFI_DEFINE_HANDLER_SYMBOL "
                "name it differently, or is it missing `extern \"C\"`?"
            ) from None
        try:
            jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(fn), platform=platform)
        except Exception as err:
            # A name registered directly with jax.ffi (not through this helper) is only known to XLA.
            if "Duplicate FFI handler registration" not in str(err):
                raise
            raise RegistrationError(
                f"FFI target {target!r} is already registered with another handler (registered elsewhere in "
                "this process), and XLA refuses a second handler for a name. Register the new build under a "
                f"new name (e.g. {target + '_v2'!r}), or restart the kernel."
            ) from None
        _REGISTERED[(target, platform)] = (self.key, symbol)
        return target


def _first_errors(stderr: str, source_name: str) -> list[str]:
    """The compiler's first error lines about our source, with line numbers, shortened."""
    lines = []
    for line in stderr.splitlines():
        if re.search(r"\b(fatal )?error\b", line) and not line.startswith("compilation terminated"):
            line = re.sub(r"^.*?([^/\s]+\.(?:cc|cpp|h|hpp|cxx)):", r"\1:", line)
            lines.append(line.strip())
        if len(lines) >= MAX_ERROR_LINES:
            break
    if not lines:
        lines = [ln.strip() for ln in stderr.strip().splitlines()[-MAX_ERROR_LINES:]]
    return lines


# ---- the XLA FFI header, precompiled ---------------------------------------------------------
# Parsing xla/ffi/api/ffi.h is about half of a typical FFI build. `precompile_headers` (run by
# `make`) compiles it once per compiler, JAX and flag set into the venv; a build with exactly one
# of those flag sets, whose code includes the header before anything of its own, then reads the
# compiled form (GCC's -include of a header with a .gch beside it).
# Exactly: GCC takes a compiled header made at another optimisation level without a word, and then
# compiles the whole file with the header's level (a -O3 build made with an -O2 header got -O2's
# code). With the same flags the code is the same instruction for instruction
# (tests/test_build.py compares the two); with any other flags a build reads the header as text.

#: The header a build includes first when its compiled form is there.
PCH_HEADER = "jbj_ffi.h"

#: The flag sets (after DEFAULT_FLAGS) the header is compiled for, by folder name: the default
#: build, -O3, and chapter 12's -O3 -march=native.
PCH_VARIANTS = {"default": (), "O3": ("-O3",), "O3-native": ("-O3", "-march=native")}

_FFI_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]xla/ffi/api/ffi\.h[>"]', re.M)
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_SYSTEM_OR_PRAGMA = re.compile(r"#\s*(include\s*<[^>]+>|pragma\b.*)")
_COURSE_INCLUDE = re.compile(r'#\s*include\s*"([A-Za-z0-9_.-]+)"')


def pch_dir(compiler: list[str] | None = None) -> Path:
    """Where the compiled FFI headers for `compiler` (default: the one builds use) and this JAX are
    kept, one folder per flag set: in the venv, which a grading kernel sees read-only."""
    identity = _compiler_identity(tuple(compiler or find_compiler())) + "\0" + _jax_identity()[0]
    key = hashlib.sha256(identity.encode()).hexdigest()[:16]
    return Path(sys.prefix) / "share" / "jax-beyond-jnp" / "pch" / key


def takes_precompiled_header(code: str) -> bool:
    """Does `code` include the FFI header with nothing before it but comments, pragmas, standard
    headers and the course's own headers (cpp/)? Then including it first changes nothing: it
    reacts to no macro, the standard headers do not depend on their order, and the course's
    headers do not depend on it."""
    found = _FFI_INCLUDE.search(code)
    if found is None:
        return False
    before = _COMMENTS.sub("", code[:found.start()])
    for line in filter(None, map(str.strip, before.splitlines())):
        ours = _COURSE_INCLUDE.fullmatch(line)
        if not (_SYSTEM_OR_PRAGMA.fullmatch(line) or ours and (cpp_dir() / ours[1]).is_file()):
            return False
    return True


def _pch_flags(code: str, compiler: list[str], flags: tuple[str, ...]) -> list[str]:
    """The flags that make a build of `code` with `flags` (after DEFAULT_FLAGS) read the compiled FFI
    header, or [] if it cannot: the header was not compiled for exactly these flags, or the code
    does not include it first, or this user cannot read it (a grading kernel's own user, say)."""
    variant = next((name for name, extra in PCH_VARIANTS.items() if extra == tuple(flags)), None)
    if variant is None or not takes_precompiled_header(code):
        return []
    folder = pch_dir(compiler) / variant
    if not all(os.access(path, os.R_OK) for path in (folder / PCH_HEADER, folder / f"{PCH_HEADER}.gch")):
        return []
    return [f"-I{folder}", "-include", PCH_HEADER]


def precompile_headers() -> Path:
    """Compile the FFI header for each of `PCH_VARIANTS` with the compiler builds use (GCC only:
    another compiler reads it as text) into `pch_dir()`, unless it is there already; returns it."""
    compiler = find_compiler()
    folder = pch_dir(compiler)
    if "clang" in _compiler_identity(tuple(compiler)).lower():
        raise BuildError(f"{compiler[0]} is not GCC; builds read the FFI header as text, which works, more slowly.")
    if all((folder / name / f"{PCH_HEADER}.gch").is_file() for name in PCH_VARIANTS):
        return folder
    _, jax_include = _jax_identity()
    folder.parent.mkdir(parents=True, exist_ok=True)
    for made in (folder.parent.parent, folder.parent):  # a grading kernel's own user reads them
        try:
            made.chmod(0o755)
        except OSError:
            pass
    work = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".pch-"))
    try:
        work.chmod(0o755)
        for name, extra in PCH_VARIANTS.items():
            (work / name).mkdir(mode=0o755)
            header = work / name / PCH_HEADER
            header.write_text('#include "xla/ffi/api/ffi.h"\n')
            # The very flags a build passes (`build`), but -shared, which only links.
            flags = [f for f in (*DEFAULT_FLAGS, *extra) if f != "-shared"]
            cmd = [*compiler, *flags, f"-isystem{jax_include}", "-x", "c++-header", str(header),
                   "-o", f"{header}.gch"]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                errors = "\n  ".join(_first_errors(proc.stderr, PCH_HEADER))
                raise BuildError(f"precompiling the FFI header for {' '.join(flags)} failed:\n  {errors}")
            for path in (header, Path(f"{header}.gch")):
                path.chmod(0o644)
            (work / name).chmod(0o755)
        shutil.rmtree(folder, ignore_errors=True)  # an earlier, partial or older layout
        os.rename(work, folder)  # whole or not at all; fails if another process put it there first
    except OSError:
        if not all((folder / name / f"{PCH_HEADER}.gch").is_file() for name in PCH_VARIANTS):
            raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folder


def _headers(folders: list[Path]) -> list[Path]:
    return sorted(p for folder in folders if folder.is_dir()
                  for p in folder.iterdir() if p.suffix in {".h", ".hh", ".hpp"})


def _content_key(code: str, all_flags: list[str], compiler: list[str], header_dirs: list[Path]) -> str:
    """What a compile depends on: the code, the flags, the compiler, the JAX version (for its
    headers) and the course's headers in `header_dirs`."""
    digest = hashlib.sha256()
    for part in (code, "\0".join(all_flags), _compiler_identity(tuple(compiler)), _jax_identity()[0],
                 *(str(d) for d in header_dirs),
                 *(str(h) + "\0" + h.read_text(errors="replace") for h in _headers(header_dirs))):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:20]


def _writable_cache() -> Path:
    out_dir = cache_dir()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise BuildError(f"cannot create the build cache {out_dir} ({err.strerror}); "
                         "set $JBJ_BUILD_CACHE to a folder you can write to.") from None
    return out_dir


def _unfinished(folder: str, names: list[str]) -> set[str]:
    """The entries of a build cache still being written: a build's scratch folder (`.<name>-…`),
    a report not yet renamed into place (`….tmp`) and the per-key locks."""
    return {n for n in names if n.startswith(".") or n.endswith((".tmp", ".lock"))}


def copy_cache(src: Path, dst: Path) -> None:
    """Copy the finished libraries and compiler reports of the build cache `src` to `dst`. Builds
    may go on in `src` meanwhile: what they are still writing is left out, and so is never read
    half-done or after it has been removed."""
    shutil.copytree(src, dst, ignore=_unfinished, dirs_exist_ok=True)


@dataclass(frozen=True)
class CompilerReport:
    """What the compiler said while compiling a source (without linking it): its messages (stderr)
    and the text of the dump files its flags asked for, by file name."""

    stderr: str
    dumps: dict[str, str]


def compiler_report(source: str, flags: tuple[str, ...] = ()) -> CompilerReport:
    """Compile cpp/`source` (or a path) to an object file that is thrown away, with C++17, `flags`
    and the course's include folders, and return what the compiler reported: e.g. GCC's notes on
    the loops it vectorised with `-fopt-info-vec-optimized`, or its dumps with `-fdump-tree-...`.
    Cached by content as `build` is, so asking again costs nothing. Raises BuildError if the
    source does not compile."""
    import json

    path = Path(source)
    if not path.is_absolute() and not path.exists() and (cpp_dir() / path).exists():
        path = cpp_dir() / path
    if not path.is_file():
        raise SourceNotFoundError(f"C++ source {str(source)!r} not found here or in the course's cpp/ folder.")
    compiler = find_compiler()
    _, jax_include = _jax_identity()
    header_dirs = list(dict.fromkeys(d.resolve() for d in (cpp_dir(), path.resolve().parent)))
    all_flags = ["-std=c++17", *flags]
    code = path.read_text()
    key = _content_key(code, [*all_flags, "(report)"], compiler, header_dirs)
    cached = _writable_cache() / f"{path.stem}-{key}.report.json"
    try:
        found = json.loads(cached.read_text())
        return CompilerReport(found["stderr"], found["dumps"])
    except (OSError, ValueError, KeyError):
        pass
    with tempfile.TemporaryDirectory(prefix=f".{path.stem}-report-") as tmp:
        cmd = [*compiler, *all_flags, "-c", "-o", os.devnull, *(f"-I{d}" for d in header_dirs),
               f"-isystem{jax_include}", str(path)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tmp)
        if proc.returncode != 0:
            errors = "\n  ".join(_first_errors(proc.stderr, path.name))
            raise BuildError(f"C++ compile of {path.name!r} failed:\n  {errors}")
        report = CompilerReport(proc.stderr, {p.name: p.read_text(errors="replace") for p in sorted(Path(tmp).iterdir())})
    partial = cached.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps({"stderr": report.stderr, "dumps": report.dumps}))
    os.replace(partial, cached)
    return report


def build(
    source: str | os.PathLike | None = None,
    *,
    code: str | None = None,
    name: str | None = None,
    flags: tuple[str, ...] = (),
    include_dirs: tuple[str | os.PathLike, ...] = (),
) -> Library:
    """Compile C++ into a shared library and return it as a Library.

    Give either `source`, a path to a .cc file (a relative path is taken from the current
    folder if it exists there, else from the course's cpp/ folder), or `code`, C++ text written
    in a notebook cell, with a `name` for messages and file names. Headers are found in cpp/,
    beside `source`, in `include_dirs`, and in `jax.ffi.include_dir()`.

    The result is cached by content: the source, the headers in those folders (not the JAX
    ones, which the JAX version stands for), the flags, the compiler and the JAX version. A
    second call with the same inputs does not run the compiler. Builds are atomic, so two
    processes building the same source at once both succeed.
    """
    if (source is None) == (code is None):
        raise TypeError("build() takes either a source path or code=..., not both")
    if isinstance(flags, str) or isinstance(include_dirs, (str, os.PathLike)):
        raise TypeError("flags and include_dirs are tuples, e.g. flags=(\"-O3\",)")
    header_dirs = [cpp_dir(), *map(Path, include_dirs)]
    if source is not None:
        path = Path(source)
        if not path.is_absolute() and not path.exists() and (cpp_dir() / path).exists():
            path = cpp_dir() / path
        if not path.is_file():
            raise SourceNotFoundError(f"C++ source {str(source)!r} not found here or in the course's cpp/ folder.")
        code = path.read_text()
        header_dirs.insert(1, path.resolve().parent)
        # File names may hold characters that make poor library names; they only label the build.
        name = name or re.sub(r"[^A-Za-z0-9_.-]+", "_", path.stem)
    name = name or "cell"
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"name {name!r} may only use letters, digits, '_', '.', '-'")

    compiler = find_compiler()
    _, jax_include = _jax_identity()
    header_dirs = list(dict.fromkeys(d.resolve() for d in header_dirs))
    all_flags = [*DEFAULT_FLAGS, *flags]
    key = _content_key(code, all_flags, compiler, header_dirs)
    out_dir = _writable_cache()
    target = out_dir / f"{name}-{key}.so"
    if target.exists():
        return Library(name, target, key, cached=True)

    # One build per key at a time; the rename below makes the result appear whole or not at all.
    with open(out_dir / f"{name}-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.exists():
            return Library(name, target, key, cached=True)
        with tempfile.TemporaryDirectory(dir=out_dir, prefix=f".{name}-") as tmp:
            src = Path(tmp) / f"{name}.cc"
            src.write_text(code)
            partial = Path(tmp) / f"{name}.so"
            # -isystem keeps warnings from the XLA headers (not ours to fix) out of the output.
            cmd = [*compiler, *all_flags, *(f"-I{d}" for d in header_dirs), f"-isystem{jax_include}",
                   *_pch_flags(code, compiler, flags), str(src), "-o", str(partial)]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                errors = "\n  ".join(_first_errors(proc.stderr, src.name))
                raise BuildError(f"C++ build of {name!r} failed:\n  {errors}")
            os.replace(partial, target)
    return Library(name, target, key, cached=False)


def precompile_main() -> int:
    """`make`'s step: say where the FFI header was compiled, or why builds go without it (status 1)."""
    try:
        print(f"FFI header precompiled in {precompile_headers()}")
    except CourseError as err:
        print(f"The FFI header is not precompiled, so C++ builds take longer: {err}", file=sys.stderr)
        return 1
    return 0
