"""planner: a desired-state tool (plan / apply) for the deployment control plane.

`planner.__version__` is the version of the installed distribution `deployment-planner`
(pyproject.toml is the one place it is written; `planner` on PyPI is another project);
from a source tree that is not installed, it is "0+unknown". It is looked up on first
use: `importlib.metadata` is not needed by `planner --help`.
"""

from functools import cache

UNKNOWN_VERSION = "0+unknown"
DISTRIBUTION = "deployment-planner"


@cache
def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return UNKNOWN_VERSION


def __getattr__(name: str) -> str:
    if name == "__version__":
        return installed_version()
    raise AttributeError(f"module 'planner' has no attribute {name!r}")
