"""Plain-data records of what a learner's code returned, for verdicts made outside the kernel.

When a class is graded, each test cell runs with its expected values removed (see
`grader.autograde.prepare`) and `JBJ_RECORD=1` in the kernel's environment. The checks then judge nothing:
each one appends what it was given to a record, and the cell's record is sent out as one
display output of type `MIME`. The grader decodes it in its own process and compares it with
the record the reference solution produced on the same inputs.

Only plain data crosses: numbers, strings, booleans, None, arrays (as raw bytes with dtype and
shape), type names, tree structures (as text), and tuples, lists and dicts of those. An object of
any other type is recorded by its type's name only, so a custom `__eq__` or `__repr__` cannot
make it compare equal to anything.
"""

from __future__ import annotations

import base64
import os
from typing import Any

import numpy as np

#: The output type that carries a test cell's record.
MIME = "application/x.jax-beyond-jnp.record+json"

#: Set in a grading kernel's environment to switch the checks to recording.
ENV = "JBJ_RECORD"

#: A record larger than this (bytes of encoded arrays) is cut off; the check then fails.
MAX_ARRAY_BYTES = 8 << 20


def recording() -> bool:
    return os.environ.get(ENV) == "1"


def cell_record(cell: dict) -> tuple[dict | None, str]:
    """The one record a graded cell sent out (read from its outputs, in the grader), and "" — or None
    and why there is none."""
    found = [out["data"][MIME] for out in cell.get("outputs", [])
             if out.get("output_type") == "display_data" and MIME in out.get("data", {})]
    if len(found) > 1:
        return None, f"the cell sent {len(found)} results instead of one (something in the notebook imitates the checks)"
    if not found:
        return None, "the cell did not get as far as reporting a result"
    return found[0], ""


def type_name(t: type) -> str:
    return f"{t.__module__}.{t.__qualname__}"


def encode(value: Any, depth: int = 0) -> Any:
    """`value` as JSON-able plain data, tagged with its kind."""
    if depth > 20:
        return {"t": "other", "type": "too deeply nested"}
    t = type(value)
    if value is None or t in (bool, int, str):
        return {"t": t.__name__ if value is not None else "none", "v": value}
    if t is float:
        return {"t": "float", "v": repr(value)}  # repr keeps nan, inf and every digit
    if t in (tuple, list):
        return {"t": t.__name__, "v": [encode(v, depth + 1) for v in value]}
    if t is dict:
        return {"t": "dict", "v": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if t is type or isinstance(value, type):
        return {"t": "type", "v": type_name(value)}
    if t is np.dtype or isinstance(value, np.dtype):
        return {"t": "dtype", "v": str(value)}
    array = _as_array(value)
    if array is not None:
        kind = "ndarray" if t is np.ndarray else ("scalar" if isinstance(value, np.generic) else "jax")
        data = np.ascontiguousarray(array).tobytes()
        if len(data) > MAX_ARRAY_BYTES or array.dtype.kind not in "biufcV":
            return {"t": "other", "type": type_name(t)}
        # Extension types such as bfloat16 are kind "V" to NumPy: keep their name, not "<V2".
        dtype = array.dtype.name if array.dtype.kind == "V" else array.dtype.str
        return {"t": "array", "kind": kind, "dtype": dtype, "shape": list(array.shape),
                "v": base64.b64encode(data).decode("ascii")}
    if type_name(t) in ("jaxlib._jax.pytree.PyTreeDef", "jaxlib.xla_extension.pytree.PyTreeDef",
                        "jax.tree_util.PyTreeDef") or t.__name__ == "PyTreeDef" and t.__module__.startswith("jax"):
        return {"t": "treedef", "v": str(value)}
    return {"t": "other", "type": type_name(t)}


def _as_array(value: Any) -> np.ndarray | None:
    """A NumPy copy of a NumPy array, NumPy scalar or JAX array; None for anything else."""
    if type(value) is np.ndarray or isinstance(value, np.generic) and type(value).__module__ == "numpy":
        return np.array(value)
    try:
        import jax
    except ImportError:  # pragma: no cover - the course always has JAX
        return None
    if isinstance(value, jax.Array) and type(value).__module__.startswith("jax"):
        try:
            return np.array(value)
        except Exception:  # a tracer, a deleted buffer: not plain data
            return None
    return None


def decode(data: Any) -> Any:
    """Back from `encode`'s form to Python and NumPy values (done in the grader's process)."""
    tag = data["t"]
    if tag == "none":
        return None
    if tag in ("bool", "int", "str"):
        expected = {"bool": bool, "int": int, "str": str}[tag]
        if type(data["v"]) is not expected:
            raise ValueError(f"record holds a {type(data['v']).__name__} tagged {tag}")
        return data["v"]
    if tag == "float":
        return float(data["v"])
    if tag == "tuple":
        return tuple(decode(v) for v in data["v"])
    if tag == "list":
        return [decode(v) for v in data["v"]]
    if tag == "dict":
        return {_key(decode(k)): decode(v) for k, v in data["v"]}
    if tag == "array":
        raw = base64.b64decode(data["v"])
        array = np.frombuffer(raw, dtype=_dtype(data["dtype"])).reshape(data["shape"]).copy()
        return Tagged("scalar", array[()]) if data["kind"] == "scalar" else Tagged(data["kind"], array)
    if tag in ("type", "dtype", "treedef"):
        return Tagged(tag, str(data["v"]))
    return Tagged("other", str(data.get("type")))


def _dtype(name: str) -> np.dtype:
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes  # bfloat16, float8 types: installed with JAX

        return np.dtype(getattr(ml_dtypes, name))


def _key(key: Any) -> Any:
    return key if isinstance(key, (str, int, bool, float, tuple, type(None))) else repr(key)


class Tagged:
    """A decoded value whose kind matters for equality: an array of a given origin, a type name."""

    __slots__ = ("kind", "value")

    def __init__(self, kind: str, value: Any):
        self.kind, self.value = kind, value

    def __eq__(self, other: object) -> bool:
        if type(other) is not Tagged or other.kind != self.kind:
            return False
        if isinstance(self.value, (np.ndarray, np.generic)):
            a, b = np.asarray(self.value), np.asarray(other.value)
            return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        return self.kind != "other" and self.value == other.value

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if self.kind == "other":
            return f"<a {self.value}>"
        if self.kind in ("type", "dtype", "treedef"):
            return self.value
        return repr(self.value)
