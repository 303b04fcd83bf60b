"""Build a `RailAttachmentSpec`: the shared roof, with every flashing slipped under the
shingles (only its lower part exposed) and the target's bolt or flashing removed for
the missing-part variants. Objects are removed before returning, so the mesh export
and the object-index pass never see them."""
from __future__ import annotations

from blender_envs.core.bpy_env import bpy
from blender_envs.core import materials, shapes
from blender_envs.solar import roof_spec as rs
from blender_envs.solar.rail_attachment import RailAttachmentSpec, flashing_exposed_v
from blender_envs.solar.roof_build import DECK_GAP_M, build_roof
from geometry import mesh_parts
from geometry.scene import BuildInfo

BUTT_TUCK_M = 0.002   # the exposed sheet stops this short of the covering butt


def _remove(name: str) -> None:
    ob = bpy.data.objects.get(name)
    if ob is not None:
        bpy.data.objects.remove(ob, do_unlink=True)


def flashing_part(spec: RailAttachmentSpec, u: float, vb: float) -> mesh_parts.Part:
    """Roof-frame flashing: the exposed sheet on the shingles up to the covering butt,
    then the rest of the sheet under that course (just above the deck)."""
    a, ft = spec.roof.array, rs.FLASHING_THICKNESS_M
    v_lo, v_butt = flashing_exposed_v(spec.roof, vb)
    v_hi = v_lo + a.flashing_l_m
    zd = -spec.roof.shingles.course_step_m - DECK_GAP_M + 2e-4
    w = a.flashing_w_m / 2
    return mesh_parts.merge_parts([
        mesh_parts.box_part((u - w, v_lo, 0.0), (u + w, v_butt - BUTT_TUCK_M, ft)),
        mesh_parts.box_part((u - w, v_butt - BUTT_TUCK_M, zd), (u + w, v_hi, zd + ft)),
    ])


def build(scene, spec: RailAttachmentSpec) -> BuildInfo:
    info = build_roof(scene, spec.roof)
    flash_mat = bpy.data.materials.get("flashing") or materials.principled("flashing", [0.55, 0.56, 0.57], 0.45, 0.8)
    M = rs.roof_frame(spec.roof)
    removed = set()
    for i, (_r, _k, u, v) in enumerate(rs.l_foot_positions(spec.roof)):
        name = f"flashing_{i}"
        _remove(name)
        if i == spec.attachment and not spec.flashing_present:
            removed.add(name)
            continue
        part = mesh_parts.transform_part(flashing_part(spec, u, v - rs.LAG_BOLT_OFFSET_M), M)
        shapes.mesh_object(scene, name, part, flash_mat, rs.pass_index("flashing", i))
    if not spec.lag_present:
        name = f"lag_bolt_{spec.attachment}"
        _remove(name)
        removed.add(name)
    objects = [o for o in info.objects if o.name not in removed]
    return BuildInfo(objects=objects, key_points=info.key_points)
