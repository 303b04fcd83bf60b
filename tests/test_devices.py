"""Device selection: the preference order as pure logic, and Cycles' real answer here."""
from __future__ import annotations

import pytest

from blender_envs.core.device_choice import NoGpuError, choose_device, is_gpu_request


def test_auto_prefers_optix_then_cuda_then_hip_oneapi_metal():
    avail = {"CPU": ["cpu"], "CUDA": ["H200"], "OPTIX": ["H200"], "HIP": ["MI300"]}
    assert choose_device("auto", avail).backend == "OPTIX"
    del avail["OPTIX"]
    assert choose_device("auto", avail).backend == "CUDA"
    del avail["CUDA"]
    assert choose_device("auto", avail).backend == "HIP"
    assert choose_device("auto", {"ONEAPI": ["arc"], "METAL": ["m3"]}).backend == "ONEAPI"
    assert choose_device("auto", {"METAL": ["m3"]}).backend == "METAL"
    assert choose_device("auto", {"CPU": ["cpu"]}).backend == "CPU"
    assert choose_device("gpu", {"CUDA": ["A100", "A100"]}).device_names == ("A100", "A100")
    assert choose_device("cpu", avail).backend == "CPU"


def test_gpu_without_gpu_is_a_clear_error():
    with pytest.raises(NoGpuError, match="device=gpu was asked for but Cycles found no GPU"):
        choose_device("gpu", {"CPU": ["cpu"]})
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        choose_device("tpu", {})


def test_a_named_backend_is_that_backend_or_a_clear_error():
    avail = {"CPU": ["cpu"], "CUDA": ["H200", "H200"], "OPTIX": ["H200", "H200"]}
    assert choose_device("cuda", avail) == choose_device("CUDA", avail)
    assert (choose_device("cuda", avail).backend, choose_device("cuda", avail).device_names) == ("CUDA", ("H200", "H200"))
    assert choose_device("optix", avail).backend == "OPTIX"
    with pytest.raises(NoGpuError, match="device=hip was asked for but Cycles found no HIP device"):
        choose_device("hip", avail)
    with pytest.raises(NoGpuError, match="device=optix"):
        choose_device("optix", {"CUDA": ["GTX 680"]})       # CUDA-only cards (compute capability < 5)
    assert [is_gpu_request(r) for r in ("gpu", "optix", "CUDA", "metal", "auto", "cpu")] == \
        [True, True, True, True, False, False]


def test_blender_is_45_and_reports_its_devices():
    from blender_envs.core.bpy_env import bpy
    from blender_envs.core.cycles_setup import available_devices, configure_device
    from blender_envs.core.scene_reset import reset_scene

    assert tuple(bpy.app.version[:2]) == (4, 5)
    avail = available_devices()
    assert "CPU" in avail
    scene = reset_scene()
    assert configure_device(scene, "cpu").backend == "CPU"
    assert scene.cycles.device == "CPU"
    has_gpu = any(k != "CPU" for k in avail)
    if has_gpu:  # a GPU box: auto must pick it
        assert configure_device(scene, "auto").backend != "CPU"
    else:
        with pytest.raises(NoGpuError):
            configure_device(scene, "gpu")
        assert configure_device(scene, "auto").backend == "CPU"
