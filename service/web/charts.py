"""Charts drawn as inline SVG on the server, so they show without JavaScript.

A chart is ``{"id": ..., "title": ..., "unit": ..., "bars": [(label, value), ...]}``,
drawn as a ``<figure>`` whose ``<figcaption>`` shows the title on screen (the SVG keeps
it as its accessible name).  Each bar carries its value in ``data-value`` and in its
text, so a reader (and a test) sees the figure itself, not only a length.

Bars start at a zero line: a positive value goes right of it, a negative one left, in
another colour, marked ``negative`` and printed with its minus sign.  The space for the
labels and the printed values is measured from their text (:func:`text_width`), so the
longest label is never cut; a chart wider than its box is scaled down whole.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

FONT = 12  # px, the size the stylesheet gives the charts' text
BAR, GAP, PAD = 22, 8, 6  # bar height, gap between bars, padding beside a text
WIDTH = 320  # px at least, the bars taking what the texts leave

# Advance widths of a broad sans-serif (DejaVu Sans, the widest of the usual ones), in
# ems: an estimate that errs on the wide side, so the text fits in any of them.
_NARROW = dict.fromkeys("iljfrt.,:;'!|()[] ", 0.40)
_WIDE = dict.fromkeys("mwMW@%", 1.0)
_DIGIT = 0.64
_UPPER = 0.76
_OTHER = 0.63


def text_width(text: str, size: float = FONT) -> float:
    """The width in px of ``text`` at ``size`` px, estimated from per-character widths
    a little wider than those of common sans-serif fonts."""
    ems = 0.0
    for char in text:
        if char in _NARROW:
            ems += _NARROW[char]
        elif char in _WIDE:
            ems += _WIDE[char]
        elif char.isdigit():
            ems += _DIGIT
        elif char.isupper():
            ems += _UPPER
        else:
            ems += _OTHER
    return ems * size


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _printed(value: float, unit: str) -> str:
    """The value as shown on the chart: a true minus sign for a negative one."""
    return _number(value).replace("-", "\u2212") + unit


def bar_chart(chart: dict[str, Any]) -> Markup:
    """A horizontal bar chart under a visible caption: one labelled bar per figure,
    their lengths in proportion to the values, left of the zero line when negative."""
    bars, unit, title = chart["bars"], chart.get("unit", ""), chart["title"]
    ident = escape(chart["id"])
    most = max((value for _, value in bars), default=0)
    least = min((value for _, value in bars), default=0)
    label_room = max((text_width(label) for label, _ in bars), default=0) + 2 * PAD
    below = max((text_width(_printed(v, unit)) + 2 * PAD for _, v in bars if v < 0),
                default=0)
    above = max((text_width(_printed(v, unit)) + 2 * PAD for _, v in bars if v >= 0),
                default=0)
    span = max(WIDTH - label_room - below - above, WIDTH / 2)
    scale = span / ((max(most, 0) - min(least, 0)) or 1)
    zero = label_room + below - min(least, 0) * scale
    width = round(label_room + below + span + above)
    height = len(bars) * (BAR + GAP) + GAP
    parts = [f'<figure class="chart-figure" data-chart-figure="{ident}">'
             f'<figcaption id="chart-{ident}">{escape(title)}</figcaption>'
             f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" data-chart="{ident}" '
             f'aria-label="{escape(title)}">',
             f'<title>{escape(title)}</title>']
    for i, (label, value) in enumerate(bars):
        y = GAP + i * (BAR + GAP)
        base = y + BAR * 0.7
        length = round(abs(value) * scale, 1)
        negative = value < 0
        start = round(zero - length, 1) if negative else round(zero, 1)
        end = start if negative else round(zero + length, 1)
        sign = "negative" if negative else "positive"
        anchor = ' text-anchor="end"' if negative else ""
        at = round(end - PAD if negative else end + PAD, 1)
        parts.append(
            f'<g class="bar {sign}" data-label="{escape(label)}" data-value="{_number(value)}">'
            f'<text class="label" x="{round(label_room - PAD, 1)}" y="{base}" '
            f'text-anchor="end">{escape(label)}</text>'
            f'<rect x="{start}" y="{y}" width="{length}" height="{BAR}" rx="3"/>'
            f'<text class="value" x="{at}" y="{base}"{anchor}>'
            f'{escape(_printed(value, unit))}</text></g>')
    parts.append(f'<line class="zero" x1="{round(zero, 1)}" x2="{round(zero, 1)}" y1="2" '
                 f'y2="{height - 2}"/>')
    parts.append("</svg></figure>")
    return Markup("".join(parts))
