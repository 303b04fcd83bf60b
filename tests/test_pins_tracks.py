"""Pins of geometry/tracks.amodal_box on a top-down pinhole camera, computed by hand.

Camera 10 m above the origin looking straight down: camera x = world x, camera y = -world y,
depth z = 10 - Z, so a world point projects to u = fx X / z + cx, v = -fy Y / z + cy. Boxes
stand on the ground (Z in [0, h]), so their corners lie at depths 10 and 10 - h; coordinates are
chosen so that the extreme corners land exactly on a frame edge where a test needs it.
"""
from __future__ import annotations

import numpy as np
import pytest

from geometry.timeline import Agent, Stationary
from geometry.tracks import amodal_box

W, H = 100, 80
CAM = np.array([[1.0, 0, 0, 0], [0, -1, 0, 0], [0, 0, -1, 10], [0, 0, 0, 1]])
K_EDGE0 = np.array([[100.0, 0, 50], [0, 100, 40], [0, 0, 1]])   # u = 0 at X/z = -0.5, v = 0 at Y/z = 0.4
K_EDGE1 = np.array([[100.0, 0, 49], [0, 100, 39], [0, 0, 1]])   # u = 99 at X/z = 0.5, v = 79 at Y/z = -0.4


def box(x0, x1, y0, y1, h=1.0):
    return Agent(track_id="b", category="box", mesh="box", size=[x1 - x0, y1 - y0, h],
                 trajectory=Stationary(position=[(x0 + x1) / 2, (y0 + y1) / 2, h / 2]))


def test_inside_the_frame_the_box_is_the_projected_corners_rounded_outwards():
    # u: X = -1, 1 at z = 9 -> 49 -/+ 100/9 = 37.888.., 60.111..; v: Y = 1, -1 at z = 9 -> 27.888.., 50.111..
    assert amodal_box(box(-1, 1, -1, 1), 0.0, K_EDGE1, CAM, W, H) == [37.8888, 27.8888, 60.1112, 50.1112]


@pytest.mark.parametrize("x0, x1, y0, y1", [(-30, -20, -1, 1),    # left of the frame only
                                            (20, 30, -1, 1),      # right only
                                            (-1, 1, 20, 30),      # above only
                                            (-1, 1, -30, -20)])   # below only
def test_a_box_beside_the_frame_on_one_side_has_none(x0, x1, y0, y1):
    assert amodal_box(box(x0, x1, y0, y1), 0.0, K_EDGE0, CAM, W, H) is None


def test_a_box_ending_exactly_on_the_left_or_top_edge_is_kept_as_a_line():
    # X = -5 at z = 10 is the right-most corner: u1 = 0 exactly; u0 = -7 * 100 / 9 + 50 < 0
    left = amodal_box(box(-7, -5, -1, 1), 0.0, K_EDGE0, CAM, W, H)
    assert left is not None and left[0] == 0.0 and left[2] == 0.0
    # Y = 4 at z = 10 is the lowest corner: v1 = 0 exactly
    top = amodal_box(box(-1, 1, 4, 6), 0.0, K_EDGE0, CAM, W, H)
    assert top is not None and top[1] == 0.0 and top[3] == 0.0
    # ending half a pixel inside: hi is that coordinate, not 1
    half = amodal_box(box(-7, -4.75, -1, 1), 0.0, K_EDGE0, CAM, W, H)   # u1 = -475/10 + 50 = 2.5
    assert half[0] == 0.0 and half[2] == 2.5


def test_a_box_starting_exactly_on_the_right_or_bottom_edge_is_kept_and_clipped():
    # X = 5 at z = 10 is the left-most corner: u0 = 99 = W - 1 exactly; the rest is clipped to 99
    right = amodal_box(box(5, 7, -1, 1), 0.0, K_EDGE1, CAM, W, H)
    assert right is not None and right[0] == 99.0 and right[2] == 99.0
    # Y = -4 at z = 10 is the top-most corner: v0 = 79 = H - 1 exactly
    bottom = amodal_box(box(-1, 1, -6, -4), 0.0, K_EDGE1, CAM, W, H)
    assert bottom is not None and bottom[1] == 79.0 and bottom[3] == 79.0


def test_a_box_starting_just_past_the_right_or_bottom_edge_has_none():
    # X = 5.125 at z = 10: u0 = 51.25 + 49 = 100.25 > W - 1; Y = -4.125: v0 = 80.25 > H - 1
    assert amodal_box(box(5.125, 7, -1, 1), 0.0, K_EDGE1, CAM, W, H) is None
    assert amodal_box(box(-1, 1, -6, -4.125), 0.0, K_EDGE1, CAM, W, H) is None


def test_a_box_over_the_bottom_edge_is_clipped_to_the_last_row_of_centres():
    # Y from -4.5 to -3: v0 = 300/10 + 39 = 69 at z = 10; v1 = 450/9 + 39 = 89 > 79 -> clipped to 79
    got = amodal_box(box(-1, 1, -4.5, -3), 0.0, K_EDGE1, CAM, W, H)
    assert got[1] == 69.0 and got[3] == 79.0
    # and over the right edge: u1 = 700/9 + 49 > 99 -> 99; u0 = 400/10 + 49 = 89
    got = amodal_box(box(4, 7, -1, 1), 0.0, K_EDGE1, CAM, W, H)
    assert got[0] == 89.0 and got[2] == 99.0


def test_a_box_behind_the_camera_has_none():
    assert amodal_box(box(-1, 1, -1, 1, h=1.0).model_copy(update={
        "trajectory": Stationary(position=[0.0, 0.0, 20.0])}), 0.0, K_EDGE1, CAM, W, H) is None
