"""Build the wheel with every kernel compiled in it: ``python tools/build_wheel.py [--out dist]`` (``make wheel``).

A plain ``pip wheel .`` gives a wheel whose kernels numba compiles on first use (~90 s on 2 cores,
with progress). This builds that wheel, unpacks it, runs the practice runs of every level kind
against the unpacked copy with ``RTSNAV_SHIP_KERNELS=1`` (numba then writes each compiled kernel
into ``rtsnav/_kernels/``; see ``rtsnav.systems.nav.shipped_kernels``), and packs the result as a
wheel for this Python and platform (``cp311-cp311-linux_x86_64`` here): installed, it starts in
seconds. The compiled code is for this machine's CPU and numba version; elsewhere numba ignores
it and compiles on first use, as without it.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("uniform", "cost", "uniform+heights", "cost+heights")


def _record_line(path: Path, name: str) -> str:
    data = path.read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _python_seeing(stage: Path, tmp: Path) -> str:
    """A Python that imports rtsnav from ``stage`` and everything else from this environment: a
    bare venv whose ``.pth`` lists this one's site-packages (its own ``.pth`` files, such as an
    editable install of rtsnav, are then not run)."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    target = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    (Path(target) / "rtsnav-build.pth").write_text(f"{stage}\n{sysconfig.get_paths()['purelib']}\n")
    return str(python)


def _compile_into(stage: Path, tmp: Path) -> int:
    """Compile every kernel into ``stage/rtsnav/_kernels``; returns the number of files written. (Run in
    ``tmp``: a Python started in the repository would import its ``rtsnav/`` instead.)"""
    python = _python_seeing(stage, tmp)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env.update(RTSNAV_SHIP_KERNELS="1", PYTHONDONTWRITEBYTECODE="1", RTSNAV_CACHE_DIR=str(tmp / "bakes"))
    where = subprocess.run([python, "-c", "import rtsnav; print(rtsnav.__file__)"], env=env, cwd=tmp,
                           capture_output=True, text=True, check=True).stdout.strip()
    if not where.startswith(str(stage)):
        raise SystemExit(f"error: the unpacked wheel is not the rtsnav imported ({where})")
    subprocess.run([python, "-m", "rtsnav.systems.nav.crowd.precompile_worker", "all", *KINDS], env=env, cwd=tmp,
                   check=True)
    # the esper layer's practice run, and the demo's first frames (its levels have heights)
    subprocess.run([python, "-c", "import numpy as np; from rtsnav.systems import Navigation, install; "
                    "from rtsnav.systems.nav import Grid; install(Navigation(Grid(np.ones((32, 32), bool))))"],
                   env=env, cwd=tmp, check=True)
    try:
        import panda3d  # noqa: F401
    except ImportError:
        print("panda3d not installed: the demo's own first frames are not compiled in", file=sys.stderr)
    else:
        for level in ("river", "highlands"):
            subprocess.run([python, "-m", "rtsnav.game", "--headless", "--level", level, "--frames", "30"],
                           env=env, cwd=tmp, check=True,
                           capture_output=True)
    return sum(1 for _ in (stage / "rtsnav" / "_kernels").rglob("*.nb[ic]"))


def build(out: Path) -> Path:
    """Build the wheel into ``out``; returns its path."""
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rtsnav-wheel-") as tmp:
        plain = Path(tmp) / "plain"
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                        "-w", str(plain), str(ROOT)], check=True, env=dict(os.environ, PYTHONWARNINGS="ignore"))
        (wheel,) = plain.glob("rtsnav-*.whl")
        stage = Path(tmp) / "stage"
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(stage)
        print(f"compiling every kernel into the wheel (about {3 * 60 // 2} s on 2 cores)...", flush=True)
        files = _compile_into(stage, Path(tmp))
        for cache in stage.rglob("__pycache__"):
            shutil.rmtree(cache)
        (info,) = stage.glob("rtsnav-*.dist-info")
        name, version = info.name.removesuffix(".dist-info").split("-")
        py = f"cp{sys.version_info[0]}{sys.version_info[1]}"
        tag = f"{py}-{py}-{sysconfig.get_platform().replace('-', '_').replace('.', '_')}"
        lines = (info / "WHEEL").read_text().splitlines()
        lines = [ln for ln in lines if not ln.startswith(("Tag:", "Root-Is-Purelib:"))]
        (info / "WHEEL").write_text("\n".join(lines + ["Root-Is-Purelib: false", f"Tag: {tag}"]) + "\n")
        members = sorted(p for p in stage.rglob("*") if p.is_file() and p.name != "RECORD")
        members.sort(key=lambda p: p.is_relative_to(info))           # .dist-info last, as wheels have it
        record = [_record_line(p, p.relative_to(stage).as_posix()) for p in members]
        record.append(f"{info.name}/RECORD,,")
        (info / "RECORD").write_text("\n".join(record) + "\n")
        out.mkdir(parents=True, exist_ok=True)
        target = out / f"{name}-{version}-{tag}.whl"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
            for p in [*members, info / "RECORD"]:
                zf.write(p, p.relative_to(stage).as_posix())
    size = target.stat().st_size / 1e6
    print(f"{target} ({size:.0f} MB, {files} kernel files) in {time.perf_counter() - t0:.0f} s")
    return target


def main(argv: list[str] | None = None) -> int:
    """Build the wheel; 0 when done."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "dist")
    build(ap.parse_args(argv).out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
