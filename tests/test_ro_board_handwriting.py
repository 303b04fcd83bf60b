"""ro_board's handwritten boards: the style share on a fixed seed set, the per-character
jitter drawn from the spec (same seed, same bytes; pinned values), the drawn glyphs'
heights measured independently on the texture and used by text_row_px (a pose just inside
and just outside 9 px of the smallest glyph, where the nominal height would pass both),
and the missing font stopping the build with the apt command."""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

import scorers.ro_board as rb
from blender_envs.vehicle import handwriting as hw
from blender_envs.vehicle import plate_texture as ptex
from blender_envs.vehicle import ro_board as env_mod
from test_ro_board import _front_pose, _terms, spec_of


def texture_of(board):
    return ptex.board_texture(board.ids.ro, board.ids.vin, board.ids.date, tuple(board.size_m), board.row_m,
                              style=board.style, hand=board.hand)


def test_style_share_on_200_seeds():
    """HANDWRITTEN_SHARE = 0.5: 110 of the test seeds 0-199 are handwritten (pinned), the
    first of them 2, 3, 6, 7; a printed board has no jitter and the print's 18 mm row."""
    styles = [spec_of(k).board for k in range(200)]
    hand = [k for k, b in enumerate(styles) if b.style == "handwritten"]
    assert len(hand) == 110 and hand[:4] == [2, 3, 6, 7]
    for b in styles:
        if b.style == "printed":
            assert b.hand is None and b.row_m == env_mod.BOARD_ROW_M
        else:
            assert b.row_m == env_mod.HAND_ROW_M
            assert [len(r) for r in b.hand] == [6, 17, 10] and all(len(c) == 5 for r in b.hand for c in r)


def test_jitter_is_drawn_from_the_spec_and_deterministic():
    """Seed 2's VIN row starts with these drawn values; two draws of the same seed give the
    same texture bytes, and moving one character's baseline changes them."""
    b = spec_of(2).board
    assert b.hand[1][:2] == [[0.0539, -0.0258, 0.9325, 6.731, -0.4003], [0.0908, -0.0198, 1.043, 11.4426, 0.4928]]
    one, _ = texture_of(b)
    two, _ = texture_of(spec_of(2).board)
    assert hashlib.sha256(one.tobytes()).digest() == hashlib.sha256(two.tobytes()).digest()
    moved = b.model_copy(deep=True)
    moved.hand[1][4][1] += 0.2
    assert texture_of(moved)[0].tobytes() != one.tobytes()
    for c in (row for r in b.hand for row in r):
        assert env_mod.HAND_SCALE_RANGE[0] <= c[2] <= env_mod.HAND_SCALE_RANGE[1]


def test_glyph_heights_match_the_ink_on_the_texture():
    """The layout's per-character heights are the ink's: connected components (ink = luma <
    128) inside each row box, measured here without the writer's code, give the same heights
    to the pixel (the date's two slashes are the extra components); the row height is their
    minimum, well below the nominal 22 mm (the font's short glyphs and the scale jitter)."""
    import cv2

    b = spec_of(2).board
    img, lay = texture_of(b)
    g, m = np.asarray(img.convert("L")), lay["px_per_m"]
    found = []
    for (x0, y0, x1, y1), heights in zip(lay["row_boxes_m"], lay["glyph_heights_m"]):
        crop = (g[round(y0 * m):round(y1 * m), round(x0 * m):round(x1 * m)] < 128).astype(np.uint8)
        _, _, stats, _ = cv2.connectedComponentsWithStats(crop, connectivity=8)
        found.append(sorted(int(s[3]) for s in stats[1:] if s[4] > 20))
        assert set(round(h * m) for h in heights) <= set(found[-1])
    assert [len(f) for f in found] == [6, 17, 10]
    assert found[1][0] == 55 and lay["row_height_m"] == pytest.approx(55 / m)
    assert lay["row_height_m"] == pytest.approx(min(min(f) for f in found[:2]) / m)
    assert rb.row_height_m(b) == lay["row_height_m"] < 0.85 * env_mod.HAND_ROW_M


def test_text_row_px_uses_the_handwritten_glyph_height():
    """Square on, the smallest drawn glyph (18.3 mm on seed 2) spans f h / d px: 1% nearer than
    f h / 9 passes, 1% further fails; at the nominal 22 mm's limit the term fails (7.5 px)."""
    spec = spec_of(2)
    h = rb.row_height_m(spec.board)
    assert h == pytest.approx(0.018333, abs=1e-6)
    f = _front_pose(spec, 1.0).K_array()[0, 0]
    d = f * h / rb.ROW_PX_MIN
    near, far = _terms(spec, _front_pose(spec, 0.99 * d)), _terms(spec, _front_pose(spec, 1.01 * d))
    assert near["text_row_px"].value == pytest.approx(9.0 / 0.99, rel=1e-4) and near["text_row_px"].passed
    assert far["text_row_px"].value == pytest.approx(9.0 / 1.01, rel=1e-4) and not far["text_row_px"].passed
    nominal = _terms(spec, _front_pose(spec, 0.99 * f * spec.board.row_m / rb.ROW_PX_MIN))["text_row_px"]
    assert nominal.value == pytest.approx(9.0 / 0.99 * h / env_mod.HAND_ROW_M, rel=1e-4) and not nominal.passed


def test_a_missing_handwriting_font_stops_with_the_apt_command(monkeypatch):
    """No fallback: the handwritten board refuses to draw; a printed one does not need the font."""
    assert hw.HAND_FONT_PATH == Path("/usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf")
    assert hw.hand_font(40).getname()[0] == "Humor Sans"
    b = spec_of(2).board
    hw.hand_font.cache_clear()
    hw._median_ink_height_ref.cache_clear()
    monkeypatch.setattr(hw, "HAND_FONT_PATH", Path("/nonexistent/Humor-Sans.ttf"))
    try:
        with pytest.raises(hw.HandFontMissing) as err:
            texture_of(b)
        assert str(err.value) == "/nonexistent/Humor-Sans.ttf is missing: apt-get install fonts-humor-sans"
        printed = spec_of(0).board
        assert printed.style == "printed" and texture_of(printed)[0].size == (1200, 810)
    finally:
        hw.hand_font.cache_clear()
        hw._median_ink_height_ref.cache_clear()


def test_a_handwritten_board_needs_its_jitter():
    b = spec_of(2).board
    with pytest.raises(ValueError, match="one jitter list per row"):
        ptex.board_texture(b.ids.ro, b.ids.vin, b.ids.date, tuple(b.size_m), b.row_m, style="handwritten")
    with pytest.raises(ValueError, match="unknown board style"):
        ptex.board_texture(b.ids.ro, b.ids.vin, b.ids.date, tuple(b.size_m), b.row_m, style="stencil")
