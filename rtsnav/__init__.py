"""rtsnav: navigation and crowd steering for esper ECS games.

One import name, four subpackages (layers, imports point downwards only)::

    rtsnav.systems.nav   the algorithm core: numpy + numba, no esper, no Panda3D
    rtsnav.systems       the esper plugin: processors, ``Navigation``, ``install``
    rtsnav.components    plain data components for esper
    rtsnav.levels        level files, Moving AI maps, bake caches, the ``rtsnav-levels`` CLI
    rtsnav.game          the Panda3D RTS demo (``pip install rtsnav[demo]``; ``rtsnav-demo``)

In the repository these live in the top-level folders ``systems/``, ``components/``,
``levels/`` and ``game/``; ``rtsnav/`` links them under the one name that is installed.
"""

__version__ = "0.2.0"
__all__ = ["__version__"]
