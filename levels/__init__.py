"""Level files, their loaders and validators, and benchmark map import."""

from .errors import LevelError
from .level_file import Level, builtin_levels, load_level
from .movingai import MAPS_DIR, Scenario, load_movingai_map, load_movingai_scenarios

__all__ = ["LevelError", "Level", "Scenario", "builtin_levels", "load_level", "load_movingai_map",
           "load_movingai_scenarios", "MAPS_DIR"]
