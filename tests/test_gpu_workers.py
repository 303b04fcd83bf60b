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


@pytest.mark.parametrize("cores, workers, threads", [
    (2, "auto", (2, 2)),        # the measured case: two workers, each with both cores' worth of threads
    (2, 1, (1, 2)),
    (16, "auto", (8, 4)),       # 8 workers at most, twice their share of 2 cores each
    (16, 3, (3, 10)),
    (16, 16, (16, 2)),
    (4, 8, (8, 2)),             # more workers than cores: still two threads each
    (1, "auto", (1, 1)),        # never more threads than cores
])
def test_cpu_workers_take_twice_their_share_of_the_cores(tmp_path, monkeypatch, cores, workers, threads):
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    assert resolve_workers(run_config(tmp_path, workers=workers, device="cpu")) == threads


def test_a_preset_with_threads_keeps_them(tmp_path, monkeypatch):
    from conftest import preview_quality

    monkeypatch.setattr("os.cpu_count", lambda: 16)
    cfg = run_config(tmp_path, workers=4, quality=preview_quality(threads=3))
    assert resolve_workers(cfg) == (4, 3)


def test_a_free_worker_takes_another_view_of_the_scene_it_holds():
    from collections import deque

    from render_farm.executors.local import take_next
    from render_farm.plan import plan_jobs, split_tail

    jobs = split_tail(plan_jobs("calib", 16, 4, "random", set(), root_seed=0, run_dir="/r", quality={},
                                device="cpu"), 2)
    assert [(j.scene_index, j.views) for j in jobs][:3] == [(0, [0, 1, 2, 3]), (1, [0, 1, 2, 3]), (2, [0])]
    q = deque(jobs)
    assert take_next(q, None, 2).scene_index == 0                    # nothing held: the head
    assert take_next(q, "random-00000", 2).scene_index == 1          # nothing of its scene waits: the head
    a, b = take_next(q, "random-00001", 2), take_next(q, None, 2)
    assert (a.scene_index, a.views, b.scene_index, b.views) == (2, [0], 2, [1])
    q.rotate(-1)                                                      # another scene's view ahead of it
    assert [(j.scene_index, j.views) for j in q][:2] == [(2, [3]), (3, [0])]
    c = take_next(q, "random-00003", 2)
    assert (c.scene_index, c.views) == (3, [0]) and [(j.scene_index, j.views) for j in q][:2] == [(2, [3]), (3, [1])]
    # it looks 4 x workers jobs ahead, not further
    far = deque(plan_jobs("calib", 40, 4, "random", set(), root_seed=0, run_dir="/r", quality={}, device="cpu"))
    assert take_next(far, "random-00008", 2).scene_index == 0
    assert take_next(far, "random-00008", 3).scene_index == 8
