"""Build a `HorizonPeakSpec`: the shared (gable) roof scene, then the surroundings: trees
and hills as merged meshes (few pass indices, fast builds), each neighbour house its own pair."""
from __future__ import annotations

import math

import numpy as np

from blender_envs.core import materials, shapes
from blender_envs.solar.horizon_peak import (HILLS_OBJECT, NEIGHBOUR_ROOF_OBJECT, NEIGHBOUR_WALL_OBJECT,
                                             TREES_CROWN_OBJECT, TREES_TRUNK_OBJECT, HorizonPeakSpec, hill_height,
                                             house_center_xy)
from blender_envs.solar.roof_build import build_roof
from blender_envs.solar.roof_spec import pass_index
from geometry import mesh_parts
from geometry.scene import BuildInfo, SceneObject


def _hill_part(spec: HorizonPeakSpec, n_az=120, n_r=9):
    h = spec.hills
    c = house_center_xy(spec.roof)
    az = np.arange(n_az) * 2 * np.pi / n_az
    t = np.linspace(0.0, 1.0, n_r)
    crest = hill_height(h, az)
    R = h.inner_radius_m + t * (h.outer_radius_m - h.inner_radius_m)
    Z = np.sin(np.pi * t)[None, :] ** 1.5 * crest[:, None] - 0.05
    X = c[0] + np.sin(az)[:, None] * R[None, :]
    Y = c[1] + np.cos(az)[:, None] * R[None, :]
    V = np.c_[X.ravel(), Y.ravel(), Z.ravel()]
    F = []
    for i in range(n_az):
        j = (i + 1) % n_az
        F += [(j * n_r + k, i * n_r + k, i * n_r + k + 1, j * n_r + k + 1) for k in range(n_r - 1)]
    return V, F


def _noisy(name, color, scale, amount):
    from blender_envs.solar.roof_build import _noise_mix, _nodes
    mat = materials.principled(name, color, 0.9)
    nt, bsdf = _nodes(mat)
    _noise_mix(nt, bsdf, color, scale, amount, coord="Object")
    return mat


def build(scene, spec: HorizonPeakSpec) -> BuildInfo:
    info = build_roof(scene, spec.roof)
    objects = list(info.objects)

    def add(name, part, mat, k, category):
        ob = shapes.mesh_object(scene, name, part, mat, pass_index("env_reserved", k))
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))

    trunks, crowns = [], []
    for t in spec.trees:
        x, y = t.xy
        trunks.append(mesh_parts.cylinder_part((x, y), t.trunk_radius_m, -0.05, t.trunk_height_m + 0.5, 6))
        if t.crown == "cone":
            crowns.append(shapes.cone_part(x, y, t.trunk_height_m, t.crown_radius_m, t.crown_height_m))
        else:
            crowns.append(shapes.sphere_part(x, y, t.trunk_height_m + 0.8 * t.crown_radius_m, t.crown_radius_m))
    add(TREES_TRUNK_OBJECT, mesh_parts.merge_parts(trunks), materials.principled("trunk", (0.12, 0.08, 0.05), 0.9),
        0, "tree_trunk")
    add(TREES_CROWN_OBJECT, mesh_parts.merge_parts(crowns), _noisy("crown", (0.05, 0.14, 0.04), 2.0, 0.5),
        1, "tree_crown")

    for k, n in enumerate(spec.neighbours):  # one wall + one roof object each: own colours
        w, d, hw, hr = n.width_m, n.depth_m, n.wall_height_m, n.roof_height_m
        M = np.eye(4)
        a = math.radians(n.yaw_deg)
        M[:3, 0], M[:3, 1] = [math.cos(a), math.sin(a), 0], [-math.sin(a), math.cos(a), 0]
        M[:3, 3] = [n.center_xy[0], n.center_xy[1], 0.0]
        prof = [(-d / 2 - 0.4, hw - 0.1), (d / 2 + 0.4, hw - 0.1), (0.0, hw + hr)]
        add(f"{NEIGHBOUR_WALL_OBJECT}_{k}", mesh_parts.transform_part(mesh_parts.box_part((-w / 2, -d / 2, -0.05),
                                                                                 (w / 2, d / 2, hw)), M),
            _noisy(f"neighbour_wall_{k}", n.wall_color, 4.0, 0.12), 10 + k, "neighbour_wall")
        add(f"{NEIGHBOUR_ROOF_OBJECT}_{k}", mesh_parts.transform_part(mesh_parts.prism_part(prof, -w / 2 - 0.3, w / 2 + 0.3), M),
            _noisy(f"neighbour_roof_{k}", n.roof_color, 6.0, 0.2), 30 + k, "neighbour_roof")
    add(HILLS_OBJECT, _hill_part(spec), _noisy("hills", spec.hills.color, 0.05, 0.4), 4, "hills")
    c = house_center_xy(spec.roof)
    return BuildInfo(objects=objects, key_points={**info.key_points, "house_center": [float(c[0]), float(c[1]), 0.0]})
