"""A matrix as an SVG heatmap, drawn on the server (no plotting library, no JavaScript).

Each cell is a square coloured by its value, with the value written in it (two decimals), so the
picture reads without a legend and without colour vision: a causal-mask leak shows as numbers
above the diagonal, a softmax over the wrong axis as rows that do not sum to 1. Scales:

- ``unit``: 0 to 1 (attention weights, masks), white to dark blue (ColorBrewer "Blues" ends).
- ``diverging``: -m to m with m the largest magnitude of the matrices compared (ColorBrewer
  "RdBu" ends), so two pictures side by side share one scale.

Non-finite cells (NaN, inf) are dark grey and say so. Text is black or white, whichever contrasts
more with the cell (WCAG 2.x relative luminance). The SVG carries ``role="img"``, a ``<title>``
and a ``<desc>`` listing every value row by row, for screen readers.
"""
from __future__ import annotations

import math
from typing import Sequence

from markupsafe import Markup, escape

CELL = 46  # px
LABEL = 26  # px for the row and column indices
WHITE, BLUE = (255, 255, 255), (8, 48, 107)
RED, DIVERGING_BLUE = (178, 24, 43), (33, 102, 172)
NON_FINITE = (80, 80, 80)

Matrix = Sequence[Sequence[float | str | None]]


def cell_value(raw) -> float:
    """A stored cell as a float: numbers as they are; "nan", "inf", "-inf" (how non-finite values
    are kept in JSON) and anything else unreadable as NaN or +-inf."""
    if isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, (int, float)):
        return float(raw)
    text = str(raw).strip().lower()
    if text in ("inf", "+inf", "infinity"):
        return math.inf
    if text in ("-inf", "-infinity"):
        return -math.inf
    return math.nan


def _mix(low: tuple, high: tuple, t: float) -> tuple[int, int, int]:
    t = min(1.0, max(0.0, t))
    return tuple(round(a + (b - a) * t) for a, b in zip(low, high))


def colour(value: float, scale: str, magnitude: float = 1.0) -> tuple[int, int, int]:
    """The fill of a cell. ``unit`` clips to [0, 1]; ``diverging`` maps [-magnitude, magnitude]."""
    if not math.isfinite(value):
        return NON_FINITE
    if scale == "unit":
        return _mix(WHITE, BLUE, value)
    if magnitude <= 0:
        return WHITE
    t = value / magnitude
    return _mix(WHITE, DIVERGING_BLUE, t) if t >= 0 else _mix(WHITE, RED, -t)


def _luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2.x relative luminance."""
    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def text_colour(fill: tuple[int, int, int]) -> str:
    """Black or white, whichever has the higher contrast ratio against ``fill``."""
    lum = _luminance(fill)
    return "#000" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#fff"


def label(value: float) -> str:
    """The text written in a cell: two decimals, ``NaN``, ``inf`` or ``-inf``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def magnitude_of(*matrices: Matrix) -> float:
    """The largest finite magnitude over ``matrices`` (the shared diverging scale)."""
    values = [abs(cell_value(v)) for m in matrices if m for row in m for v in row]
    finite = [v for v in values if math.isfinite(v)]
    return max(finite, default=1.0) or 1.0


def svg(matrix: Matrix, title: str, scale: str = "unit", magnitude: float = 1.0,
        row_name: str = "row", column_name: str = "column") -> Markup:
    """The heatmap of ``matrix`` (a list of rows) as inline SVG markup.

    ``title`` names the picture for screen readers; ``row_name`` / ``column_name`` (e.g.
    ``"query"``, ``"key"``) label the axes. Raises ``ValueError`` for an empty or ragged matrix.
    """
    rows = [[cell_value(v) for v in row] for row in matrix]
    if not rows or not rows[0] or any(len(r) != len(rows[0]) for r in rows):
        raise ValueError("a heatmap needs a non-empty rectangular matrix")
    n_rows, n_cols = len(rows), len(rows[0])
    width, height = LABEL + n_cols * CELL, LABEL + n_rows * CELL
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="heatmap" role="img" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
             f"<title>{escape(title)}</title>",
             f"<desc>{escape(describe(rows, row_name, column_name))}</desc>"]
    for j in range(n_cols):
        parts.append(f'<text x="{LABEL + j * CELL + CELL / 2}" y="{LABEL - 8}" '
                     f'class="axis" text-anchor="middle">{j}</text>')
    for i, row in enumerate(rows):
        y = LABEL + i * CELL
        parts.append(f'<text x="{LABEL - 8}" y="{y + CELL / 2 + 4}" class="axis" '
                     f'text-anchor="end">{i}</text>')
        for j, value in enumerate(row):
            x = LABEL + j * CELL
            fill = colour(value, scale, magnitude)
            parts.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" '
                         f'fill="rgb{fill}" stroke="#fff" stroke-width="1"/>')
            parts.append(f'<text x="{x + CELL / 2}" y="{y + CELL / 2 + 4}" text-anchor="middle" '
                         f'class="cell" fill="{text_colour(fill)}">{label(value)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def describe(rows: list[list[float]], row_name: str, column_name: str) -> str:
    """The values row by row, e.g. ``"2 rows (query) by 3 columns (key). query 0: 0.33, 0.33,
    0.33; query 1: ..."``."""
    head = f"{len(rows)} rows ({row_name}) by {len(rows[0])} columns ({column_name})."
    body = "; ".join(f"{row_name} {i}: " + ", ".join(label(v) for v in row)
                     for i, row in enumerate(rows))
    return f"{head} {body}."
