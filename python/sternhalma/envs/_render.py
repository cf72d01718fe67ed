"""The render modes both environments share: one picture per mode, drawn by
the module (``Position.svg``, ``Position.rgb_array``, ``Position.unicode``)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sternhalma._core import Position

RENDER_MODES: list[str] = ["svg", "rgb_array", "ansi"]


def check_render_mode(render_mode: str | None) -> None:
    """Refuses a render mode the environments do not have, when made."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, not {render_mode!r}")


def render(position: Position, render_mode: str, size: int | None) -> str | npt.NDArray[np.uint8]:
    """The picture of ``position`` in ``render_mode``: the SVG text, an RGB
    array ``(height, width, 3)``, or the text picture with its legend."""
    if render_mode == "svg":
        return position.svg(size=size)
    if render_mode == "rgb_array":
        return position.rgb_array(size=size)
    return position.unicode()
