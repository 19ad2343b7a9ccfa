"""The README's quick starts run as printed (in a fresh esper world), and print what they say."""

import re
from pathlib import Path

import esper
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_every_example_states_what_it_prints():
    assert BLOCKS and all(re.search(r"# expect: .+", block) for block in BLOCKS)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, capsys):
    esper.switch_world("readme")
    try:
        exec(compile(BLOCKS[index], f"README.md example {index + 1}", "exec"), {"__name__": "readme"})
    finally:
        esper.switch_world("default")
        esper.delete_world("readme")
    out = capsys.readouterr().out
    expected = re.search(r"# expect: (.+)", BLOCKS[index]).group(1).strip()
    assert expected in out
