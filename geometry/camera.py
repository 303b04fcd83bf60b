"""Camera model: phone lenses, OpenCV poses, Blender conversion, projection and blur.

Everything here is pure numpy/pydantic so scorers can re-derive what the renderer saw
without bpy. Conventions (used everywhere in the project):

* OpenCV camera axes: +x right, +y down, +z forward; ``cam_to_world`` is 4x4.
* Integer pixel coordinates (u, v) are pixel *centres*; a centred principal point is
  ``cx = (W-1)/2, cy = (H-1)/2``.
* Blender cameras look down local -Z with +Y up: ``T_blender = T_cv @ diag(1,-1,-1,1)``.
* Every random draw takes an explicit ``numpy.random.Generator``; no global RNG.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

# Diagonal of a 36x24 mm full-frame sensor: the reference for "35 mm equivalent" focal lengths.
FULL_FRAME_DIAG_MM = 43.27
# Diagonal / long side of a 4:3 sensor (3-4-5 triangle).
_DIAG_PER_WIDTH_4_3 = 1.25

_CV_TO_BLENDER = np.diag([1.0, -1.0, -1.0, 1.0])

LensName = Literal["main", "ultrawide", "tele"]
Orientation = Literal["landscape", "portrait"]
FocusMode = Literal["target", "locked_elsewhere", "shake", "pinhole"]
SensorFit = Literal["HORIZONTAL", "VERTICAL", "AUTO"]


# --------------------------------------------------------------------------------------
# Data models
# --------------------------------------------------------------------------------------


class PhoneLens(BaseModel):
    """One physical lens + sensor module of a phone (a 4:3 sensor, long side = width)."""

    model_config = ConfigDict(extra="forbid")
    name: LensName
    focal_mm: float
    sensor_width_mm: float
    sensor_height_mm: float
    fnumber: float
    equiv_focal_mm: float


class Phone(BaseModel):
    """A sampled phone: always a main lens, optionally ultrawide and/or tele."""

    model_config = ConfigDict(extra="forbid")
    model: str
    lenses: list[PhoneLens]
    max_digital_zoom: float

    def lens(self, name: str) -> PhoneLens:
        """Look a lens up by name; KeyError names the lenses the phone does have."""
        for lens in self.lenses:
            if lens.name == name:
                return lens
        have = [lens.name for lens in self.lenses]
        raise KeyError(f"phone {self.model} has no {name!r} lens (has {have})")

    def has_lens(self, name: str) -> bool:
        return any(lens.name == name for lens in self.lenses)


class Shake(BaseModel):
    """Constant camera velocity during the exposure, expressed in camera (OpenCV) axes."""

    model_config = ConfigDict(extra="forbid")
    angular_velocity_rad_s: list[float]
    linear_velocity_m_s: list[float]


class CameraPose(BaseModel):
    """Everything needed to render and to re-project one photo; lists keep JSON byte-stable."""

    model_config = ConfigDict(extra="forbid")
    width: int
    height: int
    K: list[list[float]]
    cam_to_world: list[list[float]]
    orientation: Orientation
    lens: PhoneLens
    digital_zoom: float = 1.0
    sensor_width_mm: float
    focus_mode: FocusMode
    focus_distance_m: float | None
    shutter_s: float
    shake_end_cam_to_world: list[list[float]] | None = None

    @model_validator(mode="after")
    def _check(self) -> "CameraPose":
        if self.width <= 0 or self.height <= 0:
            raise ValueError("image size must be positive")
        if np.asarray(self.K).shape != (3, 3):
            raise ValueError("K must be 3x3")
        if np.asarray(self.cam_to_world).shape != (4, 4):
            raise ValueError("cam_to_world must be 4x4")
        if self.shake_end_cam_to_world is not None and np.asarray(self.shake_end_cam_to_world).shape != (4, 4):
            raise ValueError("shake_end_cam_to_world must be 4x4")
        if (self.focus_mode == "pinhole") != (self.focus_distance_m is None):
            raise ValueError("focus_distance_m must be None exactly when focus_mode is 'pinhole'")
        if self.focus_distance_m is not None and self.focus_distance_m * 1000.0 <= self.lens.focal_mm:
            raise ValueError("focus distance must exceed the focal length (thin lens)")
        if self.digital_zoom < 1.0:
            raise ValueError("digital_zoom must be >= 1")
        if self.shutter_s <= 0:
            raise ValueError("shutter_s must be positive")
        return self

    def K_array(self) -> np.ndarray:
        return np.asarray(self.K, dtype=np.float64)

    def cam_to_world_array(self) -> np.ndarray:
        return np.asarray(self.cam_to_world, dtype=np.float64)

    def shake_end_array(self) -> np.ndarray | None:
        if self.shake_end_cam_to_world is None:
            return None
        return np.asarray(self.shake_end_cam_to_world, dtype=np.float64)

    @property
    def center(self) -> np.ndarray:
        """Camera centre in world coordinates (nominal pose)."""
        return self.cam_to_world_array()[:3, 3].copy()

    @property
    def fnumber(self) -> float:
        return self.lens.fnumber

    @property
    def long_side_px(self) -> int:
        return max(self.width, self.height)


class BlenderCamera(BaseModel):
    """The Blender camera-data settings that reproduce a K (square pixels)."""

    model_config = ConfigDict(extra="forbid")
    lens_mm: float
    sensor_fit: SensorFit
    sensor_width_mm: float
    sensor_height_mm: float
    shift_x: float = 0.0
    shift_y: float = 0.0

    def intrinsics(self, width: int, height: int) -> np.ndarray:
        """K that Blender renders with these settings at width x height."""
        return intrinsics_from_blender(
            self.lens_mm, self.sensor_width_mm, self.sensor_height_mm, self.sensor_fit,
            self.shift_x, self.shift_y, width, height,
        )


# --------------------------------------------------------------------------------------
# Blender <-> OpenCV
# --------------------------------------------------------------------------------------


def _fit_scale(sensor_fit: str, width: int, height: int) -> tuple[str, int]:
    """Resolve AUTO and return (effective fit, pixel extent the sensor size maps to)."""
    if sensor_fit == "AUTO":
        return ("HORIZONTAL" if width >= height else "VERTICAL"), max(width, height)
    if sensor_fit == "HORIZONTAL":
        return "HORIZONTAL", width
    if sensor_fit == "VERTICAL":
        return "VERTICAL", height
    raise ValueError(f"unknown sensor_fit {sensor_fit!r}")


def intrinsics_from_blender(
    lens_mm: float,
    sensor_width_mm: float,
    sensor_height_mm: float,
    sensor_fit: str,
    shift_x: float,
    shift_y: float,
    width: int,
    height: int,
) -> np.ndarray:
    """OpenCV K of a Blender camera (square pixels; shift in units of the fitted extent).

    AUTO uses sensor_width against the larger image side, as Blender does.
    """
    fit, scale = _fit_scale(sensor_fit, width, height)
    if sensor_fit == "VERTICAL":
        sensor_mm = sensor_height_mm
    else:  # HORIZONTAL, and AUTO always uses sensor_width
        sensor_mm = sensor_width_mm
    f_px = lens_mm / sensor_mm * scale
    cx = (width - 1) / 2.0 - shift_x * scale
    cy = (height - 1) / 2.0 + shift_y * scale
    return np.array([[f_px, 0.0, cx], [0.0, f_px, cy], [0.0, 0.0, 1.0]], dtype=np.float64)


def _shifts(K: np.ndarray, width: int, height: int, scale: int) -> tuple[float, float]:
    shift_x = ((width - 1) / 2.0 - float(K[0, 2])) / scale
    shift_y = (float(K[1, 2]) - (height - 1) / 2.0) / scale
    return shift_x, shift_y


def _check_square(K: np.ndarray) -> None:
    if not math.isclose(float(K[0, 0]), float(K[1, 1]), rel_tol=1e-9, abs_tol=0.0) or abs(float(K[0, 1])) > 1e-12:
        raise ValueError("Blender cameras need square pixels and no skew (fx == fy, K[0,1] == 0)")


def blender_camera_from_pose(pose: CameraPose) -> BlenderCamera:
    """Blender settings for a pose: the long image side is fitted to the effective sensor.

    Landscape -> HORIZONTAL fit on sensor_width, portrait -> VERTICAL fit on sensor_height,
    so the physical focal length is used as-is and digital zoom lives in the sensor size.
    """
    return blender_camera_from_intrinsics(pose.K_array(), pose.width, pose.height, pose.sensor_width_mm)


def blender_camera_from_intrinsics(
    K: np.ndarray, width: int, height: int, sensor_long_mm: float = 36.0
) -> BlenderCamera:
    """Blender settings for an arbitrary square-pixel K, fitting the long side to sensor_long_mm."""
    K = np.asarray(K, dtype=np.float64)
    _check_square(K)
    long_px, short_px = max(width, height), min(width, height)
    short_mm = sensor_long_mm * short_px / long_px
    lens_mm = float(K[0, 0]) * sensor_long_mm / long_px
    if width >= height:
        fit, sw, sh, scale = "HORIZONTAL", sensor_long_mm, short_mm, width
    else:
        fit, sw, sh, scale = "VERTICAL", short_mm, sensor_long_mm, height
    shift_x, shift_y = _shifts(K, width, height, scale)
    return BlenderCamera(
        lens_mm=lens_mm, sensor_fit=fit, sensor_width_mm=sw, sensor_height_mm=sh,
        shift_x=shift_x, shift_y=shift_y,
    )


def cv_to_blender_matrix(T: np.ndarray) -> np.ndarray:
    """OpenCV cam_to_world -> Blender camera matrix_world (flip the camera's y and z)."""
    return np.asarray(T, dtype=np.float64) @ _CV_TO_BLENDER


def blender_to_cv_matrix(T: np.ndarray) -> np.ndarray:
    """Blender camera matrix_world -> OpenCV cam_to_world (the flip is its own inverse)."""
    return np.asarray(T, dtype=np.float64) @ _CV_TO_BLENDER


# --------------------------------------------------------------------------------------
# Poses and projection
# --------------------------------------------------------------------------------------


def look_at(eye, target, up=(0.0, 0.0, 1.0), roll_rad: float = 0.0) -> np.ndarray:
    """OpenCV cam_to_world at `eye` looking at `target`, image-up towards `up`.

    If the view is (anti)parallel to `up`, another up is chosen so the pose stays defined.
    Positive roll turns the camera's x axis towards its y axis about the optical axis.
    """
    eye = np.asarray(eye, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    up = np.asarray(up, dtype=np.float64)
    fwd = target - eye
    n = np.linalg.norm(fwd)
    if n < 1e-12:
        raise ValueError("look_at: eye and target coincide")
    z = fwd / n
    x = np.cross(z, up)
    if np.linalg.norm(x) < 1e-8 * max(np.linalg.norm(up), 1e-300):
        # Looking straight along `up`: use the world axis least aligned with the view.
        for alt in (np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])):
            x = np.cross(z, alt)
            if np.linalg.norm(x) > 1e-3:
                break
    x = x / np.linalg.norm(x)
    y = np.cross(z, x)
    if roll_rad:
        c, s = math.cos(roll_rad), math.sin(roll_rad)
        x, y = c * x + s * y, -s * x + c * y
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = x, y, z, eye
    return T


def world_to_camera(points_world, cam_to_world) -> np.ndarray:
    """World points (N,3) into OpenCV camera coordinates."""
    T = np.asarray(cam_to_world, dtype=np.float64)
    P = np.atleast_2d(np.asarray(points_world, dtype=np.float64))
    R, t = T[:3, :3], T[:3, 3]
    return (P - t) @ R


def planar_depth(points_world, cam_to_world) -> np.ndarray:
    """Depth along the optical axis (N,); <= 0 means at or behind the camera plane."""
    return world_to_camera(points_world, cam_to_world)[:, 2]


def project(points_world, K, cam_to_world) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates (N,2) and planar depth (N,); the caller masks z <= 0."""
    Xc = world_to_camera(points_world, cam_to_world)
    K = np.asarray(K, dtype=np.float64)
    z = Xc[:, 2]
    h = Xc @ K.T
    with np.errstate(divide="ignore", invalid="ignore"):
        uv = h[:, :2] / h[:, 2:3]
    return uv, z


def projected_pixel_box(points_world, K, cam_to_world, width: int, height: int) -> tuple[float, ...] | None:
    """(u_min, v_min, u_max, v_max) of the points in front of the camera, clipped to the image's
    pixel centres; None when no point is in front or the box misses the image. The box of an
    unoccluded body's vertices is its silhouette box, to within a pixel, without a render."""
    uv, z = project(points_world, K, cam_to_world)
    uv = uv[z > 1e-3]
    if not len(uv):
        return None
    lo, hi = uv.min(axis=0), uv.max(axis=0)
    if hi[0] < 0 or hi[1] < 0 or lo[0] > width - 1 or lo[1] > height - 1:
        return None
    lo = np.clip(lo, 0, [width - 1, height - 1])
    hi = np.clip(hi, 0, [width - 1, height - 1])
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def share_in_image(points_world, K, cam_to_world, width: int, height: int) -> float:
    """The share of the points' projected box (e.g. a 3-D box's corners) that lies inside the
    image, between the first and last pixel centres; 0 when a point is not in front of the
    camera (its box is then unbounded) or the box has no area."""
    uv, z = project(points_world, K, cam_to_world)
    if not np.all(z > 0):
        return 0.0
    (u0, v0), (u1, v1) = uv.min(axis=0), uv.max(axis=0)
    area = (u1 - u0) * (v1 - v0)
    inside = max(0.0, min(u1, width - 1) - max(u0, 0.0)) * max(0.0, min(v1, height - 1) - max(v0, 0.0))
    return float(inside / area) if area > 0 else 0.0


def backproject(uv, z, K, cam_to_world) -> np.ndarray:
    """World points (N,3) at planar depth z behind pixels uv."""
    uv = np.atleast_2d(np.asarray(uv, dtype=np.float64))
    z = np.asarray(z, dtype=np.float64).reshape(-1)
    K = np.asarray(K, dtype=np.float64)
    T = np.asarray(cam_to_world, dtype=np.float64)
    hom = np.column_stack([uv, np.ones(len(uv))])
    rays = hom @ np.linalg.inv(K).T  # z-component 1
    Xc = rays * z[:, None]
    return Xc @ T[:3, :3].T + T[:3, 3]


def pixel_rays(K, cam_to_world, width: int, height: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World rays through every pixel centre, row-major (v, then u).

    Returns (origins, unit dirs, z_per_unit): a hit at ray distance t has planar depth
    t * z_per_unit, which is what depth maps store.
    """
    K = np.asarray(K, dtype=np.float64)
    T = np.asarray(cam_to_world, dtype=np.float64)
    vv, uu = np.mgrid[0:height, 0:width]
    hom = np.column_stack([uu.reshape(-1), vv.reshape(-1), np.ones(width * height)]).astype(np.float64)
    d_cam = hom @ np.linalg.inv(K).T
    norms = np.linalg.norm(d_cam, axis=1)
    d_cam /= norms[:, None]
    dirs = d_cam @ T[:3, :3].T
    z_per_unit = d_cam[:, 2].copy()
    origins = np.broadcast_to(T[:3, 3], dirs.shape).copy()
    return origins, dirs, z_per_unit


# --------------------------------------------------------------------------------------
# Phones
# --------------------------------------------------------------------------------------


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _make_lens(name: str, equiv_mm: float, sensor_width_mm: float, fnumber: float) -> PhoneLens:
    """Physical focal from the 35 mm equivalent: same diagonal field of view."""
    diag = sensor_width_mm * _DIAG_PER_WIDTH_4_3
    return PhoneLens(
        name=name,
        focal_mm=equiv_mm * diag / FULL_FRAME_DIAG_MM,
        sensor_width_mm=sensor_width_mm,
        sensor_height_mm=0.75 * sensor_width_mm,
        fnumber=fnumber,
        equiv_focal_mm=equiv_mm,
    )


def sample_phone(rng: np.random.Generator) -> Phone:
    """A plausible phone camera set: main always, ultrawide ~40%, tele ~35%."""
    model = f"phone-{int(rng.integers(0, 16**4)):04x}"
    lenses = [
        _make_lens("main", float(rng.uniform(24.0, 28.0)), float(rng.uniform(5.6, 9.8)), float(rng.uniform(1.6, 2.4)))
    ]
    if rng.random() < 0.40:
        lenses.append(
            _make_lens("ultrawide", float(rng.uniform(13.0, 16.0)), float(rng.uniform(4.0, 6.4)), float(rng.uniform(2.0, 2.4)))
        )
    if rng.random() < 0.35:
        lenses.append(
            _make_lens("tele", float(rng.uniform(65.0, 120.0)), float(rng.uniform(3.6, 5.6)), float(rng.uniform(2.4, 3.0)))
        )
    return Phone(model=model, lenses=lenses, max_digital_zoom=float(rng.uniform(2.0, 10.0)))


def _as_list(T) -> list[list[float]]:
    return [[float(x) for x in row] for row in np.asarray(T, dtype=np.float64)]


def pose_for_phone(
    phone: Phone,
    lens_name: str,
    digital_zoom: float,
    orientation: str,
    long_side_px: int,
    cam_to_world,
    focus_mode: str,
    focus_distance_m: float | None,
    shutter_s: float,
    shake_end=None,
) -> CameraPose:
    """Build a 4:3 pose whose K comes from the physical lens and a centre crop (digital zoom)."""
    lens = phone.lens(lens_name)
    if not 1.0 <= digital_zoom <= phone.max_digital_zoom + 1e-12:
        raise ValueError(f"digital_zoom {digital_zoom} outside [1, {phone.max_digital_zoom}]")
    if orientation not in ("landscape", "portrait"):
        raise ValueError(f"unknown orientation {orientation!r}")
    long_px = int(long_side_px)
    short_px = int(round(long_px * 3 / 4))
    width, height = (long_px, short_px) if orientation == "landscape" else (short_px, long_px)
    eff_long_mm = lens.sensor_width_mm / digital_zoom
    f_px = lens.focal_mm / eff_long_mm * long_px
    K = [[f_px, 0.0, (width - 1) / 2.0], [0.0, f_px, (height - 1) / 2.0], [0.0, 0.0, 1.0]]
    return CameraPose(
        width=width,
        height=height,
        K=K,
        cam_to_world=_as_list(cam_to_world),
        orientation=orientation,
        lens=lens,
        digital_zoom=float(digital_zoom),
        sensor_width_mm=eff_long_mm,
        focus_mode=focus_mode,
        focus_distance_m=None if focus_distance_m is None else float(focus_distance_m),
        shutter_s=float(shutter_s),
        shake_end_cam_to_world=None if shake_end is None else _as_list(shake_end),
    )


# --------------------------------------------------------------------------------------
# Focus, shutter and shake
# --------------------------------------------------------------------------------------

FOCUS_RANGE_M = (0.1, 30.0)
MIN_DEFOCUS_FRACTION = 0.35
_LOCKED_RESAMPLES = 16


def _random_unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.normal(size=3)
    n = np.linalg.norm(v)
    while n < 1e-9:  # practically never
        v = rng.normal(size=3)
        n = np.linalg.norm(v)
    return v / n


def _far_enough(focus_m: float, target_m: float) -> bool:
    return abs(focus_m - target_m) >= MIN_DEFOCUS_FRACTION * target_m


def sample_focus(
    rng: np.random.Generator, target_distance_m: float
) -> tuple[str, float, float, Shake | None]:
    """Draw (focus_mode, focus_distance_m, shutter_s, shake): 70% target, 15% locked elsewhere, 15% shake.

    "locked_elsewhere" keeps focus at least 35% (relative) from the target so the target is
    visibly soft; "shake" keeps focus on the target but moves the camera during the exposure.
    """
    if not target_distance_m > 0:
        raise ValueError("target distance must be positive")
    u = rng.random()
    if u < 0.70:
        return "target", float(target_distance_m), _log_uniform(rng, 1 / 500, 1 / 60), None
    if u < 0.85:
        lo, hi = FOCUS_RANGE_M
        focus = _log_uniform(rng, lo, hi)
        for _ in range(_LOCKED_RESAMPLES):
            if _far_enough(focus, target_distance_m):
                break
            focus = _log_uniform(rng, lo, hi)
        if not _far_enough(focus, target_distance_m):
            near = (1.0 - MIN_DEFOCUS_FRACTION) * target_distance_m
            far = (1.0 + MIN_DEFOCUS_FRACTION) * target_distance_m
            # Push to the side the draw was on unless that leaves the focus range.
            first, second = (far, near) if focus >= target_distance_m else (near, far)
            focus = first if lo <= first <= hi else second
        shutter = _log_uniform(rng, 1 / 500, 1 / 60)
        return "locked_elsewhere", float(focus), shutter, None
    shutter = _log_uniform(rng, 1 / 500, 1 / 25)
    omega = _random_unit(rng) * _log_uniform(rng, 0.02, 0.2)
    vel = _random_unit(rng) * float(rng.uniform(0.0, 0.05))
    shake = Shake(angular_velocity_rad_s=[float(x) for x in omega], linear_velocity_m_s=[float(x) for x in vel])
    return "shake", float(target_distance_m), shutter, shake


def _rodrigues(rotvec: np.ndarray) -> np.ndarray:
    theta = float(np.linalg.norm(rotvec))
    if theta < 1e-15:
        return np.eye(3)
    k = rotvec / theta
    Kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(theta) * Kx + (1.0 - math.cos(theta)) * (Kx @ Kx)


def shake_end_pose(cam_to_world, shake: Shake, shutter_s: float) -> np.ndarray:
    """Pose at shutter close under constant (camera-axes) angular and linear velocity."""
    T = np.asarray(cam_to_world, dtype=np.float64)
    R = T[:3, :3]
    omega = np.asarray(shake.angular_velocity_rad_s, dtype=np.float64)
    vel = np.asarray(shake.linear_velocity_m_s, dtype=np.float64)
    out = np.eye(4)
    out[:3, :3] = R @ _rodrigues(omega * shutter_s)
    out[:3, 3] = T[:3, 3] + R @ (vel * shutter_s)
    return out


def sample_phone_pose(
    rng: np.random.Generator, phone: Phone, cam_to_world, target_point, long_side_px: int
) -> CameraPose:
    """Draw lens, digital zoom, orientation and focus/shake for a photo of target_point."""
    u = rng.random()
    lens_name = "main"
    if 0.80 <= u < 0.90 and phone.has_lens("ultrawide"):
        lens_name = "ultrawide"
    elif u >= 0.90 and phone.has_lens("tele"):
        lens_name = "tele"
    zoom = 1.0
    if rng.random() >= 0.8:
        zoom = float(rng.uniform(1.0, min(3.0, phone.max_digital_zoom)))
    orientation = "landscape" if rng.random() < 0.6 else "portrait"
    depth = float(planar_depth(np.asarray(target_point, dtype=np.float64)[None, :], cam_to_world)[0])
    if depth <= 0:
        raise ValueError("target point is behind the camera")
    mode, focus_m, shutter, shake = sample_focus(rng, depth)
    shake_end = None if shake is None else shake_end_pose(cam_to_world, shake, shutter)
    return pose_for_phone(
        phone, lens_name, zoom, orientation, long_side_px, cam_to_world, mode, focus_m, shutter, shake_end
    )


# --------------------------------------------------------------------------------------
# Blur and viewing geometry
# --------------------------------------------------------------------------------------


def circle_of_confusion_px(pose: CameraPose, points_world) -> np.ndarray:
    """Thin-lens blur-circle diameter in pixels per point (inf behind the camera, 0 for pinhole).

    c = A * |S2 - S1| / S2 * f / (S1 - f) with A = f/N, S1 the focus distance and S2 the
    planar depth; converted to pixels via the effective (cropped) sensor long side.
    """
    P = np.atleast_2d(np.asarray(points_world, dtype=np.float64))
    if pose.focus_distance_m is None:
        return np.zeros(len(P))
    f = pose.lens.focal_mm
    A = f / pose.fnumber
    S1 = pose.focus_distance_m * 1000.0
    S2 = planar_depth(P, pose.cam_to_world_array()) * 1000.0
    with np.errstate(divide="ignore", invalid="ignore"):
        c_mm = A * np.abs(S2 - S1) / S2 * f / (S1 - f)
    c_px = c_mm / pose.sensor_width_mm * pose.long_side_px
    return np.where(S2 > 0, c_px, np.inf)


def motion_blur_px(pose: CameraPose, points_world) -> np.ndarray:
    """Pixel displacement of each point between shutter open and close (0 when steady)."""
    P = np.atleast_2d(np.asarray(points_world, dtype=np.float64))
    end = pose.shake_end_array()
    if end is None:
        return np.zeros(len(P))
    K = pose.K_array()
    uv0, z0 = project(P, K, pose.cam_to_world_array())
    uv1, z1 = project(P, K, end)
    d = np.linalg.norm(uv1 - uv0, axis=1)
    return np.where((z0 > 0) & (z1 > 0), d, np.inf)


def blur_at_target_px(pose: CameraPose, point) -> float:
    """The paper's blur measure: circle of confusion plus motion-blur displacement, in pixels."""
    P = np.asarray(point, dtype=np.float64).reshape(1, 3)
    return float(circle_of_confusion_px(pose, P)[0] + motion_blur_px(pose, P)[0])


def view_angle_deg(cam_center, point, normal, two_sided: bool = False):
    """Angle between the ray point->camera and the surface normal; 0 = square-on.

    One-sided (default) returns > 90 deg for back faces; two_sided folds them onto [0, 90].
    Broadcasts over leading axes.
    """
    c = np.asarray(cam_center, dtype=np.float64)
    p = np.asarray(point, dtype=np.float64)
    n = np.asarray(normal, dtype=np.float64)
    ray = c - p
    ray = ray / np.linalg.norm(ray, axis=-1, keepdims=True)
    n = n / np.linalg.norm(n, axis=-1, keepdims=True)
    cos = np.sum(ray * n, axis=-1)
    if two_sided:
        cos = np.abs(cos)
    ang = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    return float(ang) if np.ndim(ang) == 0 else ang
