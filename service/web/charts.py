"""Charts drawn as inline SVG on the server, so they show without JavaScript.

A chart is ``{"title": ..., "unit": ..., "bars": [(label, value), ...]}``; each bar
carries its value in ``data-value`` and in its text, so a reader (and a test) sees the
figure itself, not only a length.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

WIDTH, BAR, GAP, LABEL = 320, 22, 8, 110


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def bar_chart(chart: dict[str, Any]) -> Markup:
    """A horizontal bar chart: one labelled bar per figure, scaled to the largest."""
    bars = chart["bars"]
    top = max((abs(value) for _, value in bars), default=0) or 1
    height = len(bars) * (BAR + GAP) + GAP
    span = WIDTH - LABEL - 60
    parts = [f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height}" '
             f'width="{WIDTH}" height="{height}" data-chart="{escape(chart["id"])}" '
             f'aria-label="{escape(chart["title"])}">',
             f'<title>{escape(chart["title"])}</title>']
    for i, (label, value) in enumerate(bars):
        y = GAP + i * (BAR + GAP)
        length = round(abs(value) / top * span, 1)
        shown = _number(value)
        parts.append(
            f'<g class="bar" data-label="{escape(label)}" data-value="{shown}">'
            f'<text x="{LABEL - 6}" y="{y + BAR * 0.7}" text-anchor="end">{escape(label)}</text>'
            f'<rect x="{LABEL}" y="{y}" width="{length}" height="{BAR}" rx="3"/>'
            f'<text class="value" x="{LABEL + length + 6}" y="{y + BAR * 0.7}">{shown}'
            f'{escape(chart.get("unit", ""))}</text></g>')
    parts.append("</svg>")
    return Markup("".join(parts))
