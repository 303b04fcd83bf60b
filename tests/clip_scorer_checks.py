"""A check shared by the three VANTAGE scene scorers' pin files (warehouse, entrance, intersection)."""
from __future__ import annotations

import numpy as np

from scorers.context import RenderedFrame


def check_modal_box_from_the_index_pass(scorer, spec, geo, sample_view, width: int) -> None:
    """With the object-index pass, the first agent's pixels (a 3 x 2 block at u 5..7, v 4..5) are
    its modal box and pixel count; the other agents show none; without the pass both are None."""
    view = sample_view(spec, None, 0, width)
    h, w = view.pose.height, view.pose.width
    idx = np.zeros((h, w), np.int32)
    first = spec.timeline.agents[0].track_id
    idx[4:6, 5:8] = geo.object_id(first)
    frame = RenderedFrame(image=np.zeros((h, w, 3), np.uint8), depth=np.full((h, w), np.inf, np.float32),
                          object_index=idx)
    by_id = {o["track_id"]: o for o in scorer.ground_truth(geo, view, frame)["objects"]}
    assert by_id[first]["box_xyxy"] == [5.0, 4.0, 7.0, 5.0] and by_id[first]["visible_px"] == 6
    assert all(o["box_xyxy"] is None and o["visible_px"] == 0 for t, o in by_id.items() if t != first)
    blind = {o["track_id"]: o for o in scorer.ground_truth(geo, view)["objects"]}
    assert blind[first]["box_xyxy"] is None and blind[first]["visible_px"] is None
    assert by_id[first]["body_box_xyxy"] == blind[first]["body_box_xyxy"]
