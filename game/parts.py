"""What the parts of ``RtsApp`` (camera, HUD, input, overlays) share: the app's attributes and
the commands they call on each other, declared once (``RtsApp.__init__`` makes the attributes)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["AppParts"]


class AppParts:
    """Declarations only: the state of ``RtsApp`` its mixins read and write."""

    # state
    base: Any
    level: Any
    navigation: Any
    army: Any
    entities: list[int]
    overlay: int
    overlay_np: Any
    overlay_legend: list
    last_goal: tuple[int, int] | None
    message: str
    scene: Any
    minimap: Any
    cam_target: np.ndarray
    cam_heading: float
    cam_distance: float
    following: bool
    intent: dict
    headless: bool
    hud: Any
    tick: int
    paused: bool
    formation: bool
    armed: Any
    message_until: int
    help_visible: bool
    show_timings: bool
    frame_ms: dict
    _selected_mask: np.ndarray
    box_np: Any
    drag_start: tuple[float, float] | None
    drag_add: bool
    screenshot_path: Path
    # commands each part may call (defined on RtsApp or another part)
    selected_units: Callable[[], np.ndarray]
    say: Callable[..., None]
    _mouse_pixel: Callable[[], tuple[float, float] | None]
    _toggle_help: Callable[..., Any]
    _toggle_timings: Callable[..., Any]
    _zoom: Callable[..., Any]
    arm: Callable[..., Any]
    cycle_planner: Callable[..., Any]
    hold: Callable[..., Any]
    jump_to_selection: Callable[..., Any]
    look_at_minimap: Callable[..., Any]
    order_move_at_pixel: Callable[..., Any]
    recall_control_group: Callable[..., Any]
    screenshot: Callable[..., Any]
    select_all: Callable[..., Any]
    select_at: Callable[..., Any]
    select_box: Callable[..., Any]
    set_control_group: Callable[..., Any]
    set_overlay: Callable[..., Any]
    stop: Callable[..., Any]
    toggle_follow: Callable[..., Any]
    toggle_formation: Callable[..., Any]
    toggle_gate: Callable[..., Any]
