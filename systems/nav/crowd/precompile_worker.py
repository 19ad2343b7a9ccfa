"""Compile every kernel ahead of use: ``python -m rtsnav.systems.nav.crowd.precompile_worker [PART[,PART]] [KIND ...]``.

``warmup.precompile`` starts it as its helper process to compile one of
``warmup.COMPILE_PARTS`` into numba's on-disk cache while the caller compiles another.
``KIND`` is a level kind (``uniform``, ``cost``, ``uniform+heights``, ``cost+heights``) so the
same kernel signatures are made. ``all`` (the default) compiles everything in two processes at
once where there are two cores: what the test suite runs before its workers start. With
``RTSNAV_COMPILE_TIMES=1`` each part prints how long it took (to keep the parts balanced).
"""

from __future__ import annotations

import os
import sys
import time

from .crowd import Crowd
from .warmup import compile_part, precompile


def main(argv: list[str] | None = None) -> int:
    """Compile ``PART`` (default ``all``) for levels of each ``KIND`` (default ``uniform``); 0 when done."""
    args = sys.argv[1:] if argv is None else argv
    part = args[0] if args else "all"
    kinds = args[1:] or ["uniform"]
    if part == "all":
        precompile(Crowd, kinds)
    else:
        t0 = time.perf_counter()
        for name in part.split(","):
            for kind in kinds:
                compile_part(Crowd, name, kind)
            if os.environ.get("RTSNAV_COMPILE_TIMES"):
                print(f"{name} compiled at {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
