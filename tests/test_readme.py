"""The README's and docs' examples run as printed (in a fresh esper world), and print what they say."""

import re
from pathlib import Path

import esper
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [(page.relative_to(ROOT).as_posix(), block) for page in PAGES
          for block in re.findall(r"```python\n(.*?)```", page.read_text(), re.S)]


def test_every_example_states_what_it_prints():
    assert BLOCKS and all(re.search(r"# expect: .+", block) for _, block in BLOCKS)


def test_the_readme_is_a_guide_of_at_most_400_lines_linking_pages_that_exist():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 400
    for page in re.findall(r"`(docs/[\w.]+)`", text):
        assert (ROOT / page).exists(), page


@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=[f"{page}-{i}" for i, (page, _) in enumerate(BLOCKS)])
def test_readme_example_runs(index, capsys):
    page, block = BLOCKS[index]
    esper.switch_world("readme")
    try:
        exec(compile(block, f"{page} example", "exec"), {"__name__": "readme"})
    finally:
        esper.switch_world("default")
        esper.delete_world("readme")
    out = capsys.readouterr().out
    expected = re.search(r"# expect: (.+)", block).group(1).strip()
    assert expected in out
