"""Placing Blender workers on GPUs (selection logic; this machine has no GPU to render on)."""
from __future__ import annotations

import pytest

from conftest import run_config
from render_farm.executors.local import worker_env
from render_farm.runner import kernel_cache_dir, resolve_workers


def test_workers_share_gpus_k_at_a_time_and_keep_their_kernels(monkeypatch):
    slots = [worker_env(s, "gpu", workers_per_gpu=2, kernel_cache="/runs/.kernel-cache") for s in range(5)]
    assert [e["CUDA_VISIBLE_DEVICES"] for e in slots] == ["0", "0", "1", "1", "2"]
    assert slots[3]["OPTIX_CACHE_PATH"] == "/runs/.kernel-cache/optix"
    assert slots[3]["CUDA_CACHE_PATH"] == "/runs/.kernel-cache/cuda"
    assert [worker_env(s, "gpu")["CUDA_VISIBLE_DEVICES"] for s in range(3)] == ["0", "1", "2"]
    assert worker_env(1, "cpu", workers_per_gpu=4, kernel_cache="/x") == {"PYTHONHASHSEED": "0"}


def test_auto_workers_on_gpu_follow_the_gpus_found_and_the_cores(tmp_path, monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    cfg = run_config(tmp_path, device="gpu", workers="auto", workers_per_gpu=4)
    assert resolve_workers(cfg, gpus=1)[0] == 4
    assert resolve_workers(cfg, gpus=2)[0] == 8
    assert resolve_workers(cfg, gpus=8)[0] == 16            # never more processes than cores
    assert resolve_workers(run_config(tmp_path, device="gpu", workers="auto"), gpus=3)[0] == 3
    assert resolve_workers(run_config(tmp_path, device="gpu", workers=5, workers_per_gpu=4), gpus=1)[0] == 5
    assert resolve_workers(run_config(tmp_path, device="cpu", workers="auto", workers_per_gpu=4), gpus=0)[0] == 8


def test_kernel_cache_defaults_beside_the_runs(tmp_path):
    assert kernel_cache_dir(run_config(tmp_path / "out")) == str(tmp_path / "out" / ".kernel-cache")
    assert kernel_cache_dir(run_config(tmp_path, kernel_cache="/var/cache/k")) == "/var/cache/k"


@pytest.mark.parametrize("bad", [0, 17, -1])
def test_workers_per_gpu_out_of_range_is_refused(tmp_path, bad):
    with pytest.raises(ValueError, match="workers_per_gpu"):
        run_config(tmp_path, workers_per_gpu=bad)


def test_the_gpu_benchmark_refuses_in_one_line_without_a_gpu():
    import subprocess
    import sys

    from conftest import ROOT
    from blender_envs.core.device_choice import NoGpuError, choose_device, probe_devices

    try:
        choose_device("gpu", probe_devices())
        pytest.skip("this machine has a GPU: the benchmark would run")
    except NoGpuError:
        pass
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu_throughput.py")], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 2 and r.stdout == ""
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith("gpu_throughput: no GPU to measure on: device=gpu was asked for but Cycles found no GPU")
