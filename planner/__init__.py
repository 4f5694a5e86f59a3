"""planner: a desired-state tool (plan / apply) for the deployment control plane.

`planner.__version__` is the installed distribution's version (pyproject.toml is the one
place it is written); from a source tree that is not installed, it is "0+unknown". It is
looked up on first use: `importlib.metadata` is not needed by `planner --help`.
"""

from functools import cache

UNKNOWN_VERSION = "0+unknown"


@cache
def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("planner")
    except PackageNotFoundError:
        return UNKNOWN_VERSION


def __getattr__(name: str) -> str:
    if name == "__version__":
        return installed_version()
    raise AttributeError(f"module 'planner' has no attribute {name!r}")
