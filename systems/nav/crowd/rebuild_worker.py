"""The rebuild worker's entry point (``python -m`` this module; see ``rebuild.py``): a module
of its own so that running it does not re-execute a module the package already imported."""

from .rebuild import serve

if __name__ == "__main__":
    serve()
