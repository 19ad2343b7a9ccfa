"""The README's quick starts run as printed (in a fresh esper world)."""

import re
from pathlib import Path

import esper
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, capsys):
    esper.switch_world("readme")
    try:
        exec(compile(BLOCKS[index], f"README.md example {index + 1}", "exec"), {"__name__": "readme"})
    finally:
        esper.switch_world("default")
        esper.delete_world("readme")
    out = capsys.readouterr().out
    expected = {0: "69.91", 1: "arrived", 2: "100 of 100 arrived"}[index]
    assert expected in out
