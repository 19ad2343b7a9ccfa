"""Plain-data esper components (dataclasses with slots; stdlib and numpy only)."""
