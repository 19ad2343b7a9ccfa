"""Grid search algorithms: numba kernels plus the ``find_path`` facade."""

__all__ = []
