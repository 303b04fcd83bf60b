"""The convention test: rendered passes against independent geometry (no Blender in
the checks). Object-index pass vs ray-cast ids through the same pixel centres, projected
visible surface samples vs masks, unoccluded fractions vs mask pixel counts, depth pass
vs ray-cast distance."""
from __future__ import annotations

import json

import numpy as np
import pytest

from geometry.camera import CameraPose, project
from geometry.raycast import (Raycaster, SceneMesh, in_frame_mask, sample_surface, view_angle_deg,
                              visibility_stats, visible_mask)
from formats.records import FrameRecord

pytestmark = pytest.mark.render


def _frames(run_dir):
    recs = [FrameRecord.model_validate_json(l) for l in (run_dir / "records.jsonl").read_text().splitlines()]
    assert len(recs) == 8
    for r in recs:
        pose = CameraPose.model_validate(r.camera)
        state = json.loads((run_dir / "scenes" / f"{r.scene_id}.json").read_text())
        mesh = SceneMesh.load(run_dir / state["meshes"])
        passes = np.load(run_dir / r.passes)
        yield r, pose, mesh, passes["depth"], passes["object_index"]


def test_index_pass_equals_raycast_ids(calib_run):
    for r, pose, mesh, depth, index in _frames(calib_run):
        ids, _ = Raycaster(mesh).first_hit_ids_for_pixels(pose.K_array(), pose.cam_to_world_array(),
                                                          pose.width, pose.height)
        assert index.shape == (pose.height, pose.width)
        agree = (ids == index).mean()
        assert agree >= 0.995, f"{r.frame_id}: only {agree:.4f} of pixels agree"
        for oid in np.unique(np.concatenate([ids.ravel(), index.ravel()])):
            a, b = int((ids == oid).sum()), int((index == oid).sum())
            assert abs(a - b) <= max(2, 0.03 * a), f"{r.frame_id} object {oid}: {a} ray-cast px vs {b} mask px"


def test_visible_samples_fall_in_their_mask(calib_run):
    checked = 0
    for r, pose, mesh, depth, index in _frames(calib_run):
        rc = Raycaster(mesh)
        K, T = pose.K_array(), pose.cam_to_world_array()
        for oid in mesh.object_ids:
            if (index == oid).sum() < 50:  # thinner than a few pixels: covered by the test above
                continue
            pts, normals, _ = sample_surface(mesh, int(oid), n_interior=3000)
            # surfaces seen edge-on (> 80 deg) squeeze many metres into one pixel row,
            # where which side of a pixel centre a point falls on is arbitrary
            grazing = view_angle_deg(pose.center, pts, normals) > 80.0
            keep = in_frame_mask(pts, K, T, pose.width, pose.height) & ~grazing
            pts = pts[keep]
            pts = pts[visible_mask(rc, pose.center, pts, int(oid))]
            uv, _ = project(pts, K, T)
            u = np.clip(np.rint(uv[:, 0]).astype(int), 0, pose.width - 1)
            v = np.clip(np.rint(uv[:, 1]).astype(int), 0, pose.height - 1)
            # rasterisation samples pixel centres: a point may round to a neighbour pixel
            hit = np.zeros(len(u), bool)
            for du in (-1, 0, 1):
                for dv in (-1, 0, 1):
                    hit |= index[np.clip(v + dv, 0, pose.height - 1), np.clip(u + du, 0, pose.width - 1)] == oid
            assert hit.mean() >= 0.99, f"{r.frame_id} object {oid}: {hit.mean():.4f} inside"
            checked += 1
    assert checked >= 8


def test_unoccluded_fraction_agrees_with_mask_pixels(calib_run):
    checked = 0
    for r, pose, mesh, depth, index in _frames(calib_run):
        rc = Raycaster(mesh)
        K, T = pose.K_array(), pose.cam_to_world_array()
        for oid in mesh.object_ids:
            if oid == 1:  # the ground plane runs out of frame; fractions are of in-frame points
                continue
            solo = SceneMesh(mesh.vertices, mesh.triangles[mesh.tri_object_id == oid],
                             mesh.tri_object_id[mesh.tri_object_id == oid], mesh.object_ids, mesh.object_names)
            solo_ids, _ = Raycaster(solo).first_hit_ids_for_pixels(K, T, pose.width, pose.height)
            solo_px = int((solo_ids == oid).sum())
            if solo_px < 80:
                continue
            mask_ratio = (index == oid).sum() / solo_px
            stats = visibility_stats(rc, mesh, int(oid), K, T, pose.width, pose.height)
            assert abs(stats.unoccluded_fraction - mask_ratio) <= 0.15, (
                f"{r.frame_id} object {oid}: unoccluded {stats.unoccluded_fraction:.3f} vs mask {mask_ratio:.3f}")
            checked += 1
    assert checked >= 8


def test_depth_pass_equals_raycast_distance(calib_run):
    for r, pose, mesh, depth, index in _frames(calib_run):
        _, ray_depth = Raycaster(mesh).first_hit_ids_for_pixels(pose.K_array(), pose.cam_to_world_array(),
                                                                pose.width, pose.height)
        # away from silhouettes, where a pixel centre may fall on either side
        pad = np.pad(index, 1, mode="edge")
        interior = np.ones_like(index, bool)
        for dv in (0, 1, 2):
            for du in (0, 1, 2):
                interior &= pad[dv:dv + index.shape[0], du:du + index.shape[1]] == index
        sel = interior & (index > 0) & np.isfinite(ray_depth)
        assert sel.sum() > 0.3 * index.size
        err = np.abs(depth[sel] - ray_depth[sel])
        assert np.all(err <= 1e-3 * ray_depth[sel]), f"{r.frame_id}: max error {err.max():.5f} m"
        assert np.all(np.isinf(depth[index == 0]))


def test_ground_truth_projection_matches_mask_centroid(calib_run):
    """A fully visible target's projected centre sits on its mask's centroid."""
    checked = 0
    for r, pose, mesh, depth, index in _frames(calib_run):
        gt = r.ground_truth
        unocc = next(t.value for t in r.terms if t.name == "target_unoccluded")
        inframe = next(t.value for t in r.terms if t.name == "target_in_frame")
        if unocc < 0.999 or inframe < 0.999 or gt["target_mask_px"] < 60 or r.target == "pole":
            continue
        du = gt["target_center_px"][0] - gt["target_mask_centroid_px"][0]
        dv = gt["target_center_px"][1] - gt["target_mask_centroid_px"][1]
        # a box's centre projects near (not exactly on) its silhouette's centroid
        assert np.hypot(du, dv) <= 0.12 * np.sqrt(gt["target_mask_px"]), r.frame_id
        checked += 1
    assert checked >= 1
