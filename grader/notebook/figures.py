"""Small drawing helpers for the chapters' figures: boxes, arrows, and a PNG-only display."""

from __future__ import annotations

import io

#: Box colours the figures share, so the same kind of thing looks the same in every chapter.
COLORS = {"python": "#fde9c8", "jax": "#d7e6fb", "host": "#dff3df", "device": "#d7e6fb",
          "rule": "#efe1f7", "note": "#f2f2f2", "warn": "#fbd9d6"}


def canvas(width: float, height: float):
    """A figure with one blank axes whose data coordinates run from 0 to width and 0 to height."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, height))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return fig, ax


def box(ax, x: float, y: float, text: str, kind: str = "jax", **kwargs):
    """Write text centred at (x, y) in a rounded box coloured for its kind; returns the text artist."""
    style = dict(boxstyle="round,pad=0.45", facecolor=COLORS.get(kind, kind), edgecolor="#555555")
    return ax.text(x, y, text, ha="center", va="center", fontsize=kwargs.pop("fontsize", 9),
                   bbox=style, **kwargs)


def arrow(ax, start, end, label: str = "", *, bend: float = 0.0, color: str = "#333333", fontsize: float = 8,
          label_offset: tuple[float, float] = (0.0, 0.12)):
    """Draw an arrow from `start` to `end`, each a box from `box` or an (x, y) point, with a label.

    An arrow between two boxes starts and stops at their edges. `bend` curves it (0 is straight).
    """
    points = [_centre(ax, p) for p in (start, end)]
    ax.annotate("", xy=points[1], xytext=points[0],
                arrowprops=dict(arrowstyle="-|>", color=color, lw=1.2, connectionstyle=f"arc3,rad={bend}",
                                patchA=getattr(start, "get_bbox_patch", lambda: None)(),
                                patchB=getattr(end, "get_bbox_patch", lambda: None)(),
                                shrinkA=2, shrinkB=2))
    if label:
        (x0, y0), (x1, y1) = points
        ax.text((x0 + x1) / 2 + label_offset[0], (y0 + y1) / 2 + label_offset[1], label,
                ha="center", va="bottom", fontsize=fontsize, color=color)


def _centre(ax, point):
    if hasattr(point, "get_position"):
        return point.get_position()
    return point


def show(fig) -> None:
    """Display the figure as a PNG image only, then close it.

    The notebook then stores one image output and no "<Figure ...>" text, and no figure is left
    open for a later cell to draw again.
    """
    import matplotlib.pyplot as plt
    from IPython.display import display

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    display({"image/png": buffer.getvalue()}, raw=True)
