"""Level files, their loaders and validators, and benchmark map import."""

from .errors import LevelError
from .movingai import MAPS_DIR, Scenario, load_movingai_map, load_movingai_scenarios

__all__ = ["LevelError", "Scenario", "load_movingai_map", "load_movingai_scenarios", "MAPS_DIR"]
