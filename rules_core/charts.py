"""An SVG bar chart of value -> probability, with its table, for the calculator pages.

Every value it prints is a number or escaped: no input becomes markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

WIDTH, HEIGHT, PAD = 600, 180, 24
LABEL_SIZE = 26  # the highlighted bar's label, in the chart's own units (about 14 px on a phone)


def ratio(fraction: str) -> float:
    """'3/8' -> 0.375, without building a Fraction (200d6 has 150-digit ones)."""
    numerator, _, denominator = fraction.partition("/")
    return int(numerator) / int(denominator or 1)


def short_percent(value: float) -> str:
    percent = value * 100
    if percent and percent < 0.01:
        return "&lt;0.01%"
    return f"{percent:.2f}%"


def _short_fraction(text: str) -> str:
    """The exact fraction, unless it runs to hundreds of digits."""
    return escape(text) if len(text) <= 40 else "—"


def _label(x: float, bar_top: float, text: str) -> str:
    """The highlighted bar's value and chance, just above it and inside the chart."""
    anchor = "middle"
    if x < PAD + 80:
        anchor = "start"
    elif x > WIDTH - PAD - 80:
        anchor = "end"
    y = max(bar_top - 6, LABEL_SIZE)
    return (
        f'<text class="calc-bar-label" x="{x:.2f}" y="{y:.2f}" text-anchor="{anchor}" '
        f'font-size="{LABEL_SIZE}" fill="currentColor">{text}</text>'
    )


def bar_chart(
    points: list[tuple[int, str]],
    *,
    caption: str,
    label: str,
    highlight: int | None = None,
    highlight_name: str | None = None,
) -> str:
    """Bars of value -> probability (exact fraction strings); `highlight` is labelled, as
    `highlight_name` where given (its value, with what it stands for), else its value."""
    heights = [ratio(probability) for _, probability in points]
    top = max(heights, default=1.0) or 1.0
    step = (WIDTH - 2 * PAD) / max(len(points), 1)
    bars = []
    marked = ""
    for index, (value, _) in enumerate(points):
        bar_height = heights[index] / top * (HEIGHT - 2 * PAD)
        x = PAD + index * step
        bar_top = HEIGHT - PAD - bar_height
        on = value == highlight
        bars.append(
            f'<rect class="calc-bar{" calc-bar--on" if on else ""}" x="{x:.2f}" '
            f'y="{bar_top:.2f}" width="{max(step - 1, 0.5):.2f}" height="{bar_height:.2f}">'
            "</rect>"
        )
        if on:
            name = escape(highlight_name) if highlight_name is not None else str(value)
            marked = f"{name}: {short_percent(heights[index])}"
            bars.append(_label(x + step / 2, bar_top, marked))
    first, last = (points[0][0], points[-1][0]) if points else (0, 0)
    axis = (
        f'<text x="{PAD}" y="{HEIGHT - 6}" class="calc-axis">{first}</text>'
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - 6}" class="calc-axis" '
        f'text-anchor="end">{last}</text>'
    )
    on_row = ' class="calc-row--on"'
    rows = "".join(
        f"<tr{on_row if value == highlight else ''}><td>{value}</td>"
        f"<td>{_short_fraction(p)}</td><td>{short_percent(share)}</td></tr>"
        for (value, p), share in zip(points, heights, strict=True)
    )
    described = escape(caption) + (
        f" (highlighted: {escape(label.lower())} {marked})" if marked else ""
    )
    return (
        f'<figure class="calc-chart"><svg viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{described}" preserveAspectRatio="none">{"".join(bars)}{axis}</svg>'
        f"<figcaption>{described}</figcaption>"
        f"<details><summary>Table of the chart</summary><table><thead><tr><th>{escape(label)}"
        f"</th><th>Probability</th><th>%</th></tr></thead><tbody>{rows}</tbody></table></details>"
        "</figure>"
    )


GROUPED_HEIGHT = 220  # room under the bars for a label per group, as large as LABEL_SIZE


def grouped_bar_chart(
    groups: Sequence[tuple[str, tuple[str, ...]]], *, series: tuple[str, ...], top: str,
    caption: str, label: str,
) -> str:  # fmt: skip
    """Side-by-side bars per group (label -> one exact fraction string per series), on a
    scale from 0 to `top`; each series its own colour (calc-bar--s0, --s1), keyed under
    the chart. Each group is labelled: at most a dozen or so stay readable on a phone."""
    scale = ratio(top) or 1.0
    base = GROUPED_HEIGHT - LABEL_SIZE - 12
    step = (WIDTH - 2 * PAD) / max(len(groups), 1)
    width = max((step - 6) / max(len(series), 1), 0.5)
    drawn = []
    for index, (name, values) in enumerate(groups):
        x = PAD + index * step
        for s, value in enumerate(values):
            height = ratio(value) / scale * (base - PAD)
            drawn.append(
                f'<rect class="calc-bar calc-bar--s{s}" x="{x + 3 + s * width:.2f}" '
                f'y="{base - height:.2f}" width="{width:.2f}" height="{height:.2f}"></rect>'
            )
        drawn.append(
            f'<text class="calc-group-label" x="{x + step / 2:.2f}" y="{GROUPED_HEIGHT - 8}" '
            f'text-anchor="middle" font-size="{LABEL_SIZE}" fill="currentColor">'
            f"{escape(name)}</text>"
        )
    key = " ".join(
        f'<span class="calc-key"><svg viewBox="0 0 10 10" aria-hidden="true"><rect '
        f'class="calc-bar calc-bar--s{s}" width="10" height="10"></rect></svg>{escape(name)}</span>'
        for s, name in enumerate(series)
    )
    head = "".join(f"<th>{escape(name)}</th>" for name in series)
    rows = "".join(
        f"<tr><td>{escape(name)}</td>"
        + "".join(f"<td>{ratio(value):.2f}</td>" for value in values)
        + "</tr>"
        for name, values in groups
    )
    return (
        f'<figure class="calc-chart calc-chart--grouped"><svg viewBox="0 0 {WIDTH} '
        f'{GROUPED_HEIGHT}" role="img" aria-label="{escape(caption)}" '
        f'preserveAspectRatio="none">{"".join(drawn)}</svg>'
        f"<figcaption>{escape(caption)} {key}</figcaption>"
        f"<details><summary>Table of the chart</summary><table><thead><tr><th>{escape(label)}"
        f"</th>{head}</tr></thead><tbody>{rows}</tbody></table></details></figure>"
    )
