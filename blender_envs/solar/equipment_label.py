"""`equipment_label` (RealityBench §3.1, Tables 1–3): a data label (brand, model, serial
and a Code 128 barcode of the serial) on the back of a module, on a microinverter under
the array, or on the inverter on the house wall, photographed close up.

Spec side only (no bpy): the label's pose and text are drawn here, `equipment_label_build`
renders them and `scorers.equipment_label` scores.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.registry import Environment
from blender_envs.solar.roof_spec import (RoofSpec, l_foot_positions, laminate_bottom_z, module_gap_m, module_rect_uv,
                                          rail_positions, roof_frame, sample_roof)
from geometry.camera import Phone, look_at, sample_phone, sample_phone_pose
from geometry.scene import SceneSpec, View

GENERATOR_VERSION = "equipment_label-1"
TARGET = "equipment_label"
LABEL_OBJECT = "equipment_label"
EQUIPMENT_OBJECT = "equipment_body"        # microinverter or inverter box (none for a module)
LABEL_LIFT_M = 0.0004
MICRO_SIZE_M = (0.17, 0.12, 0.032)          # along the eave, up the slope, thickness
INVERTER_SIZE_M = (0.45, 0.20, 0.65)        # x (along the wall), depth (y), height (z)
LABEL_SIZES = {"module": ((0.12, 0.066), 0.005), "microinverter": ((0.085, 0.05), 0.0036),
               "inverter": ((0.12, 0.066), 0.005)}  # (w, h), text row height
_SERIAL_CHARS = "ABCDEFGHJKLMNPRSTUVWXYZ23456789"   # no O/0, I/1, Q: as many makers do
_BRANDS = {
    "module": ["HELIONPOWER", "SUNVANTA", "BRIGHTCELL", "AUROSOL", "KESTREL PV"],
    "microinverter": ["ENVOLTA", "MICROSUN", "APSOLAR", "TESSERA"],
    "inverter": ["VOLTAIQ", "INVERTEK", "GRIDWELL", "SOLENNA"],
}


class LabelSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    on: Literal["module", "microinverter", "inverter"]
    brand: str
    model: str
    serial: str
    size_m: list[float]                  # label width, height
    row_m: float                         # text row height of the model/serial lines
    center: list[float]                  # world centre of the printed face
    right: list[float]                   # world unit vector: text runs this way
    up: list[float]                      # world unit vector: text up
    normal: list[float]                  # world unit vector out of the printed face
    module_row: int
    module_col: int
    equipment_center: list[float] | None  # world centre of the micro / inverter box
    equipment_axes: list[list[float]] | None  # its local x, y, z as world vectors


class EquipmentLabelSpec(SceneSpec):
    roof: RoofSpec
    label: LabelSpec
    phone: Phone


def label_frame(label: LabelSpec) -> np.ndarray:
    """4x4 world matrix of the printed face (x = right, y = up, z = normal)."""
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = label.right, label.up, label.normal, label.center
    return T


def label_points(label: LabelSpec, nu: int = 9, nv: int = 7, inset: float = 0.02) -> np.ndarray:
    """Grid over the printed face, `inset` (fraction) inside its edges, lifted 0.1 mm."""
    T = label_frame(label)
    su = np.linspace(-0.5 + inset, 0.5 - inset, nu) * label.size_m[0]
    sv = np.linspace(-0.5 + inset, 0.5 - inset, nv) * label.size_m[1]
    U, V = np.meshgrid(su, sv)
    return T[:3, 3] + U.reshape(-1, 1) * T[:3, 0] + V.reshape(-1, 1) * T[:3, 1] + 1e-4 * T[:3, 2]


def label_corners(label: LabelSpec) -> np.ndarray:
    """(4, 3) world corners: top-left, top-right, bottom-right, bottom-left (as printed)."""
    T = label_frame(label)
    w, h = label.size_m[0] / 2, label.size_m[1] / 2
    signs = ((-1, 1), (1, 1), (1, -1), (-1, -1))
    return np.array([T[:3, 3] + sx * w * T[:3, 0] + sy * h * T[:3, 1] for sx, sy in signs])


# ---------------------------------------------------------------- sampling

def _code(rng, n: int) -> str:
    return "".join(_SERIAL_CHARS[int(k)] for k in rng.integers(len(_SERIAL_CHARS), size=n))


def _model(rng, on: str) -> str:
    if on == "module":
        return f"{_code(rng, 2)}-{int(rng.integers(36, 46)) * 10 + 5 * int(rng.integers(2))}M-{_code(rng, 2)}"
    if on == "microinverter":
        return f"{_code(rng, 2)}{int(rng.integers(2, 9))}-{int(rng.integers(60, 73))}-{_code(rng, 1)}"
    return f"{_code(rng, 2)}{int(rng.integers(38, 115)) * 100}-US"


def sample_label(roof: RoofSpec, rng: np.random.Generator) -> LabelSpec:
    u = rng.random()
    on = "module" if u < 0.35 else ("microinverter" if u < 0.7 else "inverter")
    brand = str(rng.choice(_BRANDS[on]))
    model, serial = _model(rng, on), _code(rng, int(rng.integers(10, 13)))
    size, row = LABEL_SIZES[on]
    a = roof.array
    M = roof_frame(roof)
    ex, ey, n = M[:3, 0], M[:3, 1], M[:3, 2]
    col = int(rng.integers(a.cols))
    u0, v0, u1, _ = module_rect_uv(roof, 0, col)
    rail_v = min(v for (r, _k, v, _lo, _hi) in rail_positions(roof) if r == 0)
    eq_c = eq_axes = None
    if on in ("module", "microinverter"):
        # under the bottom row: text up = upslope, read from below (right = -eave)
        right, up, normal = -ex, ey, -n
        if on == "module":
            z = laminate_bottom_z(roof) - LABEL_LIFT_M
            v_lo, v_hi = v0 + a.frame_width_m + 0.01 + size[1] / 2, rail_v - 0.03 - size[1] / 2
            v = float(rng.uniform(v_lo, max(v_lo, v_hi)))
            uc = float(rng.uniform(u0 + 0.1 + size[0] / 2, u1 - 0.1 - size[0] / 2))
        else:
            mx, my, mz = MICRO_SIZE_M
            feet = [fu for (r, k, fu, _v) in l_foot_positions(roof) if r == 0 and k == 0]
            uc = float(rng.uniform(u0 + mx / 2 + 0.05, u1 - mx / 2 - 0.05))
            for _ in range(30):  # bounded: clear of the L-feet under the lower rail
                if all(abs(uc - fu) > mx / 2 + 0.04 for fu in feet):
                    break
                uc = float(rng.uniform(u0 + mx / 2 + 0.05, u1 - mx / 2 - 0.05))
            v = rail_v - 0.02 - my / 2           # hung on the rail's downslope side
            top = module_gap_m(roof) - 0.004
            eq_c = (M[:3, 3] + uc * ex + v * ey + (top - mz / 2) * n).round(6).tolist()
            eq_axes = [ex.tolist(), ey.tolist(), n.tolist()]
            z = top - mz - LABEL_LIFT_M
        center = M[:3, 3] + uc * ex + v * ey + z * n
    else:
        # a wall box on the house's eave-side wall (y = eave overhang), label on its +x side
        h = roof.house
        x_lo, x_hi = -roof.eave_length_m / 2 + h.rake_overhang_m + 0.6, roof.eave_length_m / 2 - h.rake_overhang_m - 0.8
        x = float(rng.uniform(x_lo, x_hi))
        for _ in range(30):  # bounded: away from the ladder
            if abs(x - roof.ladder.x) > 1.0:
                break
            x = float(rng.uniform(x_lo, x_hi))
        bx, by, bz = INVERTER_SIZE_M
        z0 = float(rng.uniform(0.9, 1.3))
        yw = h.eave_overhang_m
        eq_c = [round(x, 6), round(yw - by / 2, 6), round(z0 + bz / 2, 6)]
        eq_axes = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        right, up, normal = np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])
        center = np.array([x + bx / 2 + LABEL_LIFT_M, yw - by / 2, z0 + bz * float(rng.uniform(0.4, 0.6))])
    return LabelSpec(on=on, brand=brand, model=model, serial=serial, size_m=list(size), row_m=row,
                     center=np.round(center, 6).tolist(), right=np.round(right, 9).tolist(),
                     up=np.round(up, 9).tolist(), normal=np.round(normal, 9).tolist(),
                     module_row=0, module_col=col, equipment_center=eq_c, equipment_axes=eq_axes)


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> EquipmentLabelSpec:
    roof = sample_roof(rng)
    return EquipmentLabelSpec(env="equipment_label", scene_id=scene_id, seed=seed, roof=roof,
                              label=sample_label(roof, rng), phone=sample_phone(rng))


def sample_view(spec: EquipmentLabelSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """Under the array the installer slides the phone in from the lower edge, lens up,
    a few cm above the shingles; at the wall box they stand in front of the house. Aim
    by hand at the label."""
    lab = spec.label
    X = np.asarray(lab.center, float)
    if lab.on in ("module", "microinverter"):
        M = roof_frame(spec.roof)
        ex, ey, n = M[:3, 0], M[:3, 1], M[:3, 2]
        clear = float(X @ n - M[:3, 3] @ n)   # label height above the roof surface
        h = float(rng.uniform(0.02, max(0.03, clear - 0.03)))
        back = float(rng.uniform(-0.05, 0.35))  # downslope of the label
        side = float(rng.normal(0.0, 0.12))
        eye = X + (h - clear) * n - back * ey + side * ex
        up = ey
    else:
        az = math.radians(float(rng.uniform(-20.0, 80.0)))  # from the label normal towards the street
        d = float(np.exp(rng.uniform(np.log(0.12), np.log(1.4))))
        eye = X + d * (math.cos(az) * np.array([1.0, 0, 0]) + math.sin(az) * np.array([0, -1.0, 0]))
        eye[2] = float(rng.uniform(1.1, 1.75))
        up = np.array([0.0, 0.0, 1.0])
    dist = float(np.linalg.norm(X - eye))
    aim = X + rng.normal(0.0, 0.07 * dist, size=3)
    cam_to_world = look_at(eye, aim, up=up, roll_rad=math.radians(float(rng.normal(0.0, 6.0))))
    pose = sample_phone_pose(rng, spec.phone, cam_to_world, X, long_side_px)
    return View(view_index=view_index, pose=pose, target=TARGET, attempt=attempt)


ENV = Environment(
    name="equipment_label",
    family="solar",
    version=GENERATOR_VERSION,
    views_per_scene=2,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.solar.equipment_label_build:build",
    scorer="scorers.equipment_label",
    spec_model=EquipmentLabelSpec,
    prompts="realitybench",
)
