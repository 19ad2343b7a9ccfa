"""rtsnav's esper processors and plugin entry point; the algorithm core lives in ``systems.nav``."""
