"""Which Cycles device to render on, as a pure function of what Blender reports.

`auto` prefers OptiX > CUDA > HIP > oneAPI > Metal > CPU (BlenderProc/Infinigen order);
`gpu` insists on a GPU and fails loudly when there is none; `cpu` is always allowed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

GPU_PREFERENCE = ("OPTIX", "CUDA", "HIP", "ONEAPI", "METAL")
DEVICE_REQUESTS = ("auto", "cpu", "gpu")


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
