"""rtsnav's esper processors and plugin entry point; the algorithm core lives in ``rtsnav.systems.nav``.

    import esper
    from rtsnav.systems import Navigation, install
    install(Navigation(grid))      # adds every processor to the current esper world
    esper.process(1 / 60)

Names are imported lazily so that ``import rtsnav.systems.nav`` (the pure core) never loads esper.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "Navigation": ".navigation",
    "install": ".plugin",
    "uninstall": ".plugin",
    "installed_processors": ".plugin",
    "PROCESSOR_ORDER": ".plugin",
    "AgentRegistryProcessor": ".registry",
    "CrowdProcessor": ".crowd_step",
    "BoundReadProcessor": ".bound_sync",
    "BoundWriteProcessor": ".bound_sync",
    "ComponentBinding": ".binding",
    "events": ".events",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name], __name__)
        value = module if name == "events" else getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rtsnav.systems' has no attribute {name!r}")
