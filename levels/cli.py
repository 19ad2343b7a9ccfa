"""CLI manners shared by ``rtsnav-levels`` and ``rtsnav-demo``: bad input prints ``error: ...``
and exits with status 2, never a traceback unless ``--debug`` asks for one."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from rtsnav.systems.nav.errors import NavError

from .errors import LevelError

__all__ = ["CliError", "run_command", "positive_int", "whole_number_in", "add_debug_flag", "image_file", "png_file", "IMAGE_SUFFIXES"]


class CliError(Exception):
    """A command-line argument or file that cannot be used; the message says what and why."""


#: What a command may raise for bad input: reported as ``error: ...`` with exit status 2.
USER_ERRORS = (CliError, LevelError, NavError, OSError, UnicodeDecodeError)


def add_debug_flag(parser: argparse.ArgumentParser, subcommand: bool = False) -> None:
    """``--debug``: show tracebacks. On a subcommand it does not reset a ``--debug`` given before it."""
    parser.add_argument("--debug", action="store_true", help="show a traceback for errors",
                        default=argparse.SUPPRESS if subcommand else False)


def positive_int(text: str) -> int:
    """argparse type: an integer ≥ 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def whole_number_in(low: int, high: int) -> Callable[[str], int]:
    """argparse type: an integer in ``[low, high]`` (the message says the range)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number in [{low}, {high}], got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a whole number in [{low}, {high}], got {value}")
        return value
    return parse


#: Image files a frame is saved as (by the name's suffix; Panda3D writes each of them).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tga", ".tif", ".tiff", ".ppm", ".pnm")


def image_file(text: str, suffixes: tuple[str, ...] = IMAGE_SUFFIXES) -> Path:
    """argparse type: a path to save an image at, named with one of ``suffixes`` (a name such as
    ``shot.txt`` wrote an empty file and reported it saved)."""
    path = Path(text)
    if path.suffix.lower() not in suffixes or not path.stem or path.stem.startswith("."):
        raise argparse.ArgumentTypeError(f"expected an image file name such as shot{suffixes[0]} (ending in "
                                         f"{', '.join(suffixes)}), got {text!r}")
    return path


def png_file(text: str) -> Path:
    """argparse type: a path to save a PNG at, named ``*.png`` (a ``.jpg`` name got PNG data)."""
    return image_file(text, (".png",))


def positive_seconds(text: str) -> float:
    """argparse type: a finite number of seconds > 0 (at most a day of simulated time)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds > 0, got {text!r}") from None
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError(f"expected seconds > 0 and at most 86400, got {text}")
    return value


def run_command(command: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run ``command(args)``; bad input becomes ``error: ...`` on stderr and exit status 2."""
    try:
        return command(args)
    except USER_ERRORS as e:
        if getattr(args, "debug", False):
            raise
        message = str(e)
        if isinstance(e, OSError) and e.filename is not None:
            message = f"{e.filename}: {e.strerror or e}"
        print(f"error: {message}", file=sys.stderr)
        return 2
