"""Which Cycles device to render on, as a pure function of what Blender reports.

`auto` prefers OptiX > CUDA > HIP > oneAPI > Metal > CPU (BlenderProc/Infinigen order);
`gpu` insists on a GPU and fails loudly when there is none; `optix`, `cuda`, ... insist on that
backend (to compare them, bench/gpu_throughput.py); `cpu` is always allowed.
This module never imports bpy: `probe_devices` asks a short subprocess.
"""
from __future__ import annotations

from dataclasses import dataclass, field

GPU_PREFERENCE = ("OPTIX", "CUDA", "HIP", "ONEAPI", "METAL")
BACKEND_REQUESTS = tuple(b.lower() for b in GPU_PREFERENCE)
DEVICE_REQUESTS = ("auto", "cpu", "gpu", *BACKEND_REQUESTS)


def is_gpu_request(request: str) -> bool:
    """A request that must render on a GPU (one GPU per worker, probed before a run)."""
    return request.lower() == "gpu" or request.lower() in BACKEND_REQUESTS


class NoGpuError(RuntimeError):
    pass


@dataclass(frozen=True)
class DeviceChoice:
    backend: str                      # "CPU" or one of GPU_PREFERENCE
    device_names: tuple[str, ...] = field(default_factory=tuple)

    @property
    def cycles_device(self) -> str:
        return "CPU" if self.backend == "CPU" else "GPU"

    def describe(self) -> str:
        names = ", ".join(self.device_names) or "none listed"
        return f"{self.backend} ({names})"


def choose_device(request: str, available: dict[str, list[str]]) -> DeviceChoice:
    """Pick a backend from `available` (backend -> non-CPU device names Blender found)."""
    request = request.lower()
    if request not in DEVICE_REQUESTS:
        raise ValueError(f"unknown device {request!r}; choose one of {', '.join(DEVICE_REQUESTS)}")
    if request == "cpu":
        return DeviceChoice("CPU", tuple(available.get("CPU", ())))
    if request in BACKEND_REQUESTS:
        names = [n for n in available.get(request.upper(), []) if n]
        if not names:
            found = ", ".join(f"{k}: {len(v)}" for k, v in sorted(available.items())) or "nothing"
            raise NoGpuError(f"device={request} was asked for but Cycles found no {request.upper()} device "
                             f"(found {found}). Use DEVICE=gpu or DEVICE=auto.")
        return DeviceChoice(request.upper(), tuple(names))
    for backend in GPU_PREFERENCE:
        names = [n for n in available.get(backend, []) if n]
        if names:
            return DeviceChoice(backend, tuple(names))
    if request == "gpu":
        found = ", ".join(f"{k}: {len(v)}" for k, v in sorted(available.items())) or "nothing"
        raise NoGpuError(
            "device=gpu was asked for but Cycles found no GPU (checked "
            f"{', '.join(GPU_PREFERENCE)}; found {found}). Use DEVICE=cpu or DEVICE=auto."
        )
    return DeviceChoice("CPU", tuple(available.get("CPU", ())))


PROBE_MARK = "scenebench-devices:"
_PROBE = ("import json; from blender_envs.core.cycles_setup import available_devices; "
          f"print({PROBE_MARK!r} + json.dumps(available_devices()), flush=True)")


class DeviceProbeError(RuntimeError):
    pass


def probe_devices(env_vars: dict[str, str] | None = None, timeout_s: float = 180.0) -> dict[str, list[str]]:
    """What Cycles reports in a worker-like process: one short subprocess that imports bpy,
    so the coordinator can refuse `device=gpu` before it writes anything, without bpy."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, **(env_vars or {})}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    try:
        out = subprocess.run([sys.executable, "-c", _PROBE], env=env, cwd=root, capture_output=True,
                             text=True, errors="replace", timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DeviceProbeError(f"could not ask Blender for its devices: {exc}") from None
    for line in reversed(out.stdout.splitlines()):
        if line.startswith(PROBE_MARK):
            return json.loads(line[len(PROBE_MARK):])
    last = (out.stderr.strip().splitlines() or ["no output"])[-1]
    raise DeviceProbeError(f"could not ask Blender for its devices (exit code {out.returncode}: {last})")
