"""Build a `SlopeGaugeSpec`: the shared roof, then the gauge (body, end caps, LCD window)."""
from __future__ import annotations

import numpy as np

from blender_envs.core import materials, primitives
from blender_envs.solar.roof_build import build_roof
from blender_envs.solar.roof_spec import pass_index
from blender_envs.solar.slope_gauge import (DISPLAY_SIZE_M, GAUGE_BODY_OBJECT, GAUGE_DISPLAY_OBJECT, GAUGE_SIZE_M,
                                            SlopeGaugeSpec, display_matrix, gauge_matrix, reading_text)
from blender_envs.solar.slope_gauge_texture import lcd_texture
from geometry.scene import BuildInfo, SceneObject

BODY_COLORS = [(0.85, 0.45, 0.04), (0.05, 0.05, 0.055), (0.75, 0.08, 0.05), (0.12, 0.3, 0.65)]


def build(scene, spec: SlopeGaugeSpec) -> BuildInfo:
    info = build_roof(scene, spec.roof)
    objects = list(info.objects)

    def add(ob, category):
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))

    T = gauge_matrix(spec.roof, spec.gauge)
    color = BODY_COLORS[spec.seed % len(BODY_COLORS)]
    add(primitives.box(scene, GAUGE_BODY_OBJECT, list(GAUGE_SIZE_M[1::-1]) + [GAUGE_SIZE_M[2]], T,
                       materials.principled("gauge_body", color, 0.55), pass_index("env_reserved", 0)), "gauge_body")
    # dark bezel around the window, then the window itself
    B = display_matrix(spec.roof, spec.gauge)
    B[:3, 3] -= B[:3, 2] * 0.0002
    add(primitives.plane(scene, "gauge_bezel", DISPLAY_SIZE_M[0] + 0.006, DISPLAY_SIZE_M[1] + 0.006, B,
                         materials.principled("gauge_bezel", (0.03, 0.03, 0.03), 0.4), pass_index("env_reserved", 2)),
        "gauge_bezel")
    lcd = materials.image_material("gauge_lcd", lcd_texture(reading_text(spec.roof, spec.gauge)), roughness=0.3)
    add(primitives.plane(scene, GAUGE_DISPLAY_OBJECT, DISPLAY_SIZE_M[0], DISPLAY_SIZE_M[1],
                         display_matrix(spec.roof, spec.gauge), lcd, pass_index("env_reserved", 1)), "gauge_display")
    return BuildInfo(objects=objects, key_points={**info.key_points,
                                                  "display_center": np.round(B[:3, 3], 6).tolist()})
