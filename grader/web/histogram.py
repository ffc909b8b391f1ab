"""The score distribution as an SVG bar chart, drawn on the server (no plotting library, no
JavaScript), readable without colour: every bar is one dark grey with its count written above it,
the bins' edges are written under the axis (points), and the axes say what they count. The SVG carries
``role="img"``, a ``<title>`` and a ``<desc>`` listing every bin, for screen readers; the page
shows the same numbers in a table beside it.
"""
from __future__ import annotations

from typing import Sequence

from markupsafe import Markup, escape

BAR = 44       # px per bin
GAP = 6        # px between bars
HEIGHT = 160   # px of the tallest bar
LEFT = 44      # px for the y-axis labels
BOTTOM = 46    # px for the bin labels and the x-axis title
TOP = 22       # px above the tallest bar, for its count
INK = "#1f2328"        # axes and text: 15.8:1 on white
BAR_FILL = "#4a525c"   # bars: 7.6:1 on white (WCAG 1.4.11 asks 3:1 for graphics)


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def svg(bins: Sequence[dict], title: str, unit: str = "points") -> Markup:
    """An SVG of ``bins`` (``[{"from", "to", "learners"}]``, as
    :func:`grader.grading.item_statistics.histogram` returns them), titled ``title``."""
    n = len(bins)
    peak = max((b["learners"] for b in bins), default=0) or 1
    width = LEFT + n * (BAR + GAP) + GAP
    height = TOP + HEIGHT + BOTTOM
    base = TOP + HEIGHT
    described = "; ".join(f"{_number(b['from'])} to {_number(b['to'])} {unit}: "
                          f"{b['learners']} learner{'' if b['learners'] == 1 else 's'}"
                          for b in bins)
    parts = [f'<svg class="histogram" xmlns="http://www.w3.org/2000/svg" role="img" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'aria-labelledby="hist-title hist-desc">',
             f'<title id="hist-title">{escape(title)}</title>',
             f'<desc id="hist-desc">{escape(described)}</desc>',
             f'<line x1="{LEFT}" y1="{base}" x2="{width - 2}" y2="{base}" stroke="{INK}" '
             'stroke-width="1.5"/>',
             f'<line x1="{LEFT}" y1="{TOP - 8}" x2="{LEFT}" y2="{base}" stroke="{INK}" '
             'stroke-width="1.5"/>']
    for tick in sorted({0, peak // 2, peak}):
        y = base - HEIGHT * tick / peak
        parts.append(f'<text class="axis" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" '
                     f'fill="{INK}">{tick}</text>')
    for index, b in enumerate(bins):
        x = LEFT + GAP + index * (BAR + GAP)
        h = HEIGHT * b["learners"] / peak
        if b["learners"]:
            parts.append(f'<rect x="{x}" y="{base - h:.1f}" width="{BAR}" height="{h:.1f}" '
                         f'fill="{BAR_FILL}"/>')
        parts.append(f'<text class="count" x="{x + BAR / 2}" y="{base - h - 5:.1f}" '
                     f'text-anchor="middle" fill="{INK}">{b["learners"]}</text>')
    for index, edge in enumerate([b["from"] for b in bins] + [bins[-1]["to"]] if bins else []):
        x = LEFT + GAP / 2 + index * (BAR + GAP)  # the bins' edges, between the bars
        parts.append(f'<line x1="{x}" y1="{base}" x2="{x}" y2="{base + 5}" stroke="{INK}"/>')
        parts.append(f'<text class="axis" x="{x}" y="{base + 18}" text-anchor="middle" '
                     f'fill="{INK}">{_number(edge)}</text>')
    parts.append(f'<text class="axis-title" x="{LEFT + (width - LEFT) / 2}" y="{height - 6}" '
                 f'text-anchor="middle" fill="{INK}">score ({escape(unit)})</text>')
    parts.append(f'<text class="axis-title" x="12" y="{TOP + HEIGHT / 2}" text-anchor="middle" '
                 f'fill="{INK}" transform="rotate(-90 12 {TOP + HEIGHT / 2})">learners</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
