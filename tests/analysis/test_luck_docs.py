"""The worked example of docs/ANALYSIS.md (Luck) runs and says what the code says."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

from service.analysis.deal_start import mean_dealt_value

DOC = Path(__file__).resolve().parents[2] / "docs" / "ANALYSIS.md"


def luck_section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## Luck")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_the_worked_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", luck_section(), re.S)
    assert blocks
    for block in blocks:
        test = doctest.DocTestParser().get_doctest(block, {}, "ANALYSIS.md", str(DOC), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0 and runner.tries > 0


def test_the_quoted_mean_is_the_table():
    section = luck_section()
    mean = mean_dealt_value("low", 1, 10)
    assert f"{mean:.2f} points of deadwood" in section
    assert f"{mean:.2f} − 44 = +{mean - 44:.2f}" in section
