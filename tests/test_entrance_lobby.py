"""entrance's lobby stage without Blender: the furnished lobby is in the spec (pinned for a
seed, varied across seeds), nobody's path comes near any item (an independent scan against
the convex hull of each item's own part vertices, not the footprint the placement used),
the items stand apart, inside the lobby and out of the door zone, the loiter region and the
side opening; the stage leaves the people, the door and the events the same bytes as without
it; same seed, same bytes."""
from __future__ import annotations

import collections
import math

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from blender_envs.infra import entrance as E
from blender_envs.infra import entrance_crowd as C
from blender_envs.infra import entrance_lobby as L
from blender_envs.infra.entrance_furnishings import NEW_KINDS
from blender_envs.infra.entrance_layout import furniture_parts
from blender_envs.infra.people import CIVILIAN_SIZE_XY
from formats.canonical import canonical_json
from geometry.polygons import point_poly_distance, poly_distance, polys_intersect, rect_poly
from render_farm.seeds import rng_for

SEEDS = range(10)
PERSON_R = 0.5 * math.hypot(*CIVILIAN_SIZE_XY)


def _spec(seed: int) -> E.EntranceSpec:
    return E.sample_scene(rng_for("test_entrance", seed, "scene"), f"s{seed}", seed)


@pytest.fixture(scope="module")
def drawn():
    return [_spec(s) for s in SEEDS]


def _hull(f) -> np.ndarray:
    """The item's floor outline from its own part vertices (counter-clockwise convex hull)."""
    V = np.vstack([np.asarray(p[0], float)[:, :2] for p, _ in furniture_parts(f)])
    return V[ConvexHull(V).vertices]


def test_a_seed_pins_its_furnished_lobby():
    s = _spec(4)
    kinds = collections.Counter(f.kind for f in s.furniture)
    assert dict(kinds) == {"armchair": 1, "bench": 1, "bin": 4, "low_table": 1, "planter_small": 2,
                           "planter_tall": 2, "reception": 1, "sofa": 1}
    d = s.decor
    assert (d.windows.wall, len(d.windows.bays)) == ("right", 2)
    assert [w.kind for w in d.wall_items] == ["poster"] * 4
    assert (d.tile_m, d.fabric, d.wood, len(d.rugs)) == (0.6, "navy", "black", 0)
    assert set(d.skirting) == {"left", "right"}


def test_lobbies_are_furnished_and_vary(drawn):
    new = [[f for f in s.furniture if f.kind in NEW_KINDS] for s in drawn]
    assert all(len(n) >= 2 for n in new) and sum(len(n) for n in new) >= 50
    assert sum(any(f.kind == "reception" for f in n) for n in new) >= 6
    assert sum(any(f.kind == "sofa" for f in n) for n in new) >= 6
    assert sum(s.decor.windows is not None for s in drawn) >= 6
    assert all(len(s.decor.wall_items) >= 2 for s in drawn)
    assert len({s.decor.tile_m for s in drawn}) >= 2 and len({s.decor.fabric for s in drawn}) >= 3
    assert len({tuple(sorted(collections.Counter(f.kind for f in n).items())) for n in new}) >= 8


def test_nobody_comes_near_any_item(drawn):
    """Every scripted person's ground point keeps PERSON_R + 0.15 m from every item's hull (0.02 s
    scan), and PERSON_R + 0.3 m from the lobby stage's items (placed 0.4 m off at a 0.1 s scan)."""
    ts = np.arange(0.0, E.DURATION_S, 0.02)
    for s in drawn:
        tracks = [np.array([a.position(t)[:2] for t in ts]) for a in s.timeline.agents if a.category == "person"]
        for f in s.furniture:
            H = _hull(f)
            clear = 0.3 if f.kind in NEW_KINDS else 0.15
            for P in tracks:
                assert float(point_poly_distance(P, H).min()) > PERSON_R + clear, (s.scene_id, f)


def test_crowd_passers_keep_clear_of_every_item():
    for seed in range(2):
        s = C.sample_scene(rng_for("test_lobby_crowd", seed, "scene"), f"c{seed}", seed)
        assert any(f.kind in NEW_KINDS for f in s.furniture)
        hulls = [_hull(f) for f in s.furniture]
        for a in s.timeline.agents:
            if a.track_id.startswith("passer"):
                P = np.array([a.position(t)[:2] for t in np.arange(0.0, E.DURATION_S, 0.02)])
                d = min(float(point_poly_distance(P, H).min()) for H in hulls)
                assert d > PERSON_R + 0.15, (seed, a.track_id)


def test_items_stand_apart_inside_the_lobby_and_out_of_the_zones(drawn):
    for s in drawn:
        x0, _, x1, yw = s.lobby
        yf = yw - 0.1
        hulls = [_hull(f) for f in s.furniture]
        for i, H in enumerate(hulls):
            assert H[:, 0].min() > x0 and H[:, 0].max() < x1 and H[:, 1].max() < yf, (s.scene_id, s.furniture[i])
            for j in range(i):
                assert not polys_intersect(H, hulls[j]), (s.scene_id, s.furniture[i], s.furniture[j])
            if s.furniture[i].kind not in NEW_KINDS:
                continue
            door = rect_poly([s.door_x - 2.0, yf - 2.0, s.door_x + 2.0, yf])
            assert poly_distance(H, door) > 0.0
            R = np.asarray(s.loiter_region.polygon, float)
            assert poly_distance(H, rect_poly([*R.min(axis=0), *R.max(axis=0)])) > 0.25
            if s.side_gap[1] > s.side_gap[0]:
                g0, g1 = s.side_gap
                xa, xb = (x1 - 2.0, x1) if s.region_side > 0 else (x0, x0 + 2.0)
                assert poly_distance(H, rect_poly([xa, g0 - 0.5, xb, g1 + 0.5])) > 0.0


def test_wall_items_stay_off_the_door_and_each_other(drawn):
    for s in drawn:
        items = s.decor.wall_items
        for i, w in enumerate(items):
            if w.wall == "door":
                assert abs(w.u - s.door_x) > 0.9 + w.width / 2, (s.scene_id, w)
            if s.decor.windows is not None:
                assert w.wall != s.decor.windows.wall
            for v in items[:i]:
                if v.wall == w.wall:
                    assert abs(v.u - w.u) > (v.width + w.width) / 2, (s.scene_id, v, w)


def test_the_stage_leaves_people_door_and_events_unchanged(monkeypatch):
    """The same draw with a lobby stage whose floor refuses every item: the people, the door,
    the scripts and the events are the same bytes, the first furniture draw keeps its slots (a
    superset of those it keeps beside the stage's anchors), and the scene's generator ends in
    the same state (entrance_crowd draws on from it)."""
    def dump(spec, key):
        v = getattr(spec, key)
        if isinstance(v, dict):
            return canonical_json({k: x.model_dump(mode="json") for k, x in v.items()})
        return canonical_json([x.model_dump(mode="json") for x in v] if isinstance(v, list) else v.model_dump(mode="json"))

    for seed in (1, 4, 9):
        rng = rng_for("test_entrance", seed, "scene")
        first = []                                   # what the first draw kept beside the anchors
        real = L.LobbyStage.finish
        monkeypatch.setattr(L.LobbyStage, "finish", lambda self, furn: (first.extend(furn), real(self, furn))[1])
        full = E.sample_scene(rng, f"s{seed}", seed)
        monkeypatch.undo()
        after = rng.random()
        assert full.furniture[:len(first)] == first
        monkeypatch.setattr(L._Floor, "free", lambda self, P, gap=0.0: False)
        rng2 = rng_for("test_entrance", seed, "scene")
        bare = E.sample_scene(rng2, f"s{seed}", seed)
        monkeypatch.undo()
        assert rng2.random() == after
        assert not any(f.kind in NEW_KINDS for f in bare.furniture)
        for key in ("timeline", "scripts", "looks", "door", "lighting", "loiter_region"):
            assert dump(full, key) == dump(bare, key), (seed, key)
        assert full.grants == bare.grants
        assert first and all(f in bare.furniture for f in first)
        assert [e.model_dump(mode="json") for e in E.events(full)] == [e.model_dump(mode="json")
                                                                      for e in E.events(bare)]
        planned = sorted((x.type, sorted(x.actors)) for x in full.scripts if x.positive)
        assert sorted((e.type, sorted(e.actors)) for e in E.events(full)) == planned


def test_same_seed_same_bytes_other_seed_other_lobby():
    a, b = _spec(3), _spec(3)
    assert canonical_json(a.model_dump(mode="json")) == canonical_json(b.model_dump(mode="json"))
    assert a.decor != _spec(5).decor
    assert L.stage_rng(3, "lobby").random() == L.stage_rng(3, "lobby").random() != L.stage_rng(4, "lobby").random()
