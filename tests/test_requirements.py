"""Are the pins exact, and do requirements.txt, environment.yml and pyproject.toml agree?"""

from __future__ import annotations

import re
import tomllib

from conftest import ROOT

PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([A-Za-z0-9_.+-]+)$")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = PIN.match(line)
        assert match, f"requirements.txt: {line!r} is not an exact pin (name==version)"
        pins[_norm(match.group(1))] = match.group(2)
    return pins


def environment_pins() -> dict[str, str]:
    pins, in_pip = {}, False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        stripped = line.strip()
        if stripped == "- pip:":
            in_pip = True
            continue
        if in_pip and stripped.startswith("- ") and "==" in stripped:
            name, version = stripped[2:].split("==")
            pins[_norm(name)] = version
    return pins


def test_every_requirement_is_pinned_exactly():
    """Is every line of requirements.txt a name==version pin, including the course's key packages?"""
    pins = requirements()
    assert pins["jax"] == "0.12.0.1" and pins["jaxlib"] == "0.12.0.1"
    assert pins["nbgrader"] == "0.9.6" and pins["nbval"] == "0.11.0"
    for needed in ("numpy", "scipy", "jupyterlab", "pytest", "ipykernel", "nbclient", "nbformat"):
        assert needed in pins, f"{needed} is not pinned"


def test_environment_yml_mirrors_requirements():
    """Does environment.yml pin exactly the same packages at the same versions?"""
    req, env = requirements(), environment_pins()
    only_req = sorted(set(req) - set(env))
    only_env = sorted(set(env) - set(req))
    differ = sorted(name for name in set(req) & set(env) if req[name] != env[name])
    assert not (only_req or only_env or differ), (
        f"only in requirements.txt: {only_req}; only in environment.yml: {only_env}; "
        f"different versions: {[(n, req[n], env[n]) for n in differ]}")
    assert "python=3.13" in (ROOT / "environment.yml").read_text()


def test_pyproject_agrees_with_the_pins():
    """Does every exact pin in pyproject.toml match requirements.txt, and is Python >= 3.12 required?"""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.12"
    req = requirements()
    for dep in project["dependencies"]:
        match = PIN.match(dep)
        if match:
            assert req[_norm(match.group(1))] == match.group(2), dep


def test_installed_versions_are_the_pinned_ones():
    """Is the environment running these tests the pinned one?"""
    from importlib.metadata import version

    req = requirements()
    for name in ("jax", "jaxlib", "numpy", "nbgrader", "nbval", "jupyterlab"):
        assert version(name) == req[name], name
