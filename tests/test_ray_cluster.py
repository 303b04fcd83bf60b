"""A real two-node Ray cluster without shared storage: the scene tasks run on a node that cannot see
the output root (a tmpfs over it, in its own mount namespace), and the run store the coordinator
writes is byte-identical to the local executor's."""
from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_config
from formats.records import FrameRecord
from render_farm.runner import render

pytestmark = [pytest.mark.ray, pytest.mark.render]
RAY = Path(sys.executable).with_name("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _can_hide_a_folder() -> str | None:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return "needs root and unshare(1) for a private mount namespace"
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs none /mnt"], capture_output=True)
    return None if probe.returncode == 0 else f"cannot mount a tmpfs here: {probe.stderr.decode().strip()}"


def _start(argv: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _check_alive(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is not None:
            pytest.fail(f"a ray node exited: {p.stderr.read().decode()[-2000:]}")


def _wait_for_head(port: int, procs: list[subprocess.Popen], timeout_s: float = 120) -> None:
    """The head's GCS port accepts connections (ray.init would wait minutes for a dead head)."""
    deadline = time.monotonic() + timeout_s
    while True:
        _check_alive(procs)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                pytest.fail(f"the ray head did not listen on {port} in {timeout_s:g} s")
            time.sleep(0.5)


# The driver runs in its own process, as on a real submit machine (and Ray's token state stays out
# of this test process): it waits for both nodes, then renders.
DRIVER = """
import sys, time
import ray
from render_farm.runner import RunConfig, render
address, cfg = sys.argv[1], RunConfig.model_validate_json(sys.argv[2])
ray.init(address=address, log_to_driver=False)
deadline = time.monotonic() + 120
while sum(n["Alive"] for n in ray.nodes()) < 2:
    if time.monotonic() > deadline:
        sys.exit("the second ray node did not join in 120 s")
    time.sleep(0.5)
s = render(cfg)
print("FRAMES", s.frames, "FAILED", len(s.failed_scenes))
"""


def _store_files(run_dir: Path) -> dict[str, bytes]:
    return {p.relative_to(run_dir).as_posix(): p.read_bytes()
            for kind in ("frames", "passes", "scenes") for p in sorted((run_dir / kind).glob("*"))}


def _stable(run_dir: Path) -> list[str]:
    return [FrameRecord.model_validate_json(line).stable_json()
            for line in (run_dir / "records.jsonl").read_text().splitlines()]


def test_scene_tasks_on_a_node_without_the_output_root_fill_the_store_byte_identically(tmp_path):
    reason = _can_hide_a_folder()
    if reason:
        pytest.skip(reason)
    local = render(run_config(tmp_path / "local", n=4)).run_dir

    out = tmp_path / "cluster"
    out.mkdir()
    (out / "visible-to-the-head-only").write_text("x")
    ray_tmp = tempfile.mkdtemp(prefix="sbray", dir="/tmp")      # short: Ray's socket paths must fit 107 bytes
    port = _free_port()
    address = f"127.0.0.1:{port}"
    # a cluster of its own token (Ray 2.60 turns token authentication on when ~/.ray/auth_token exists)
    token = Path(ray_tmp) / "auth_token"
    token.write_text(secrets.token_hex(32))
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token), "PYTHONPATH": str(ROOT),
           "PYTHONHASHSEED": "0", "RAY_USAGE_STATS_ENABLED": "0"}
    # the head offers no CPU, so no scene can run where the output root is visible
    head = _start([str(RAY), "start", "--head", "--block", f"--port={port}", "--num-cpus=0",
                   "--include-dashboard=false", "--node-ip-address=127.0.0.1", f"--temp-dir={ray_tmp}",
                   "--disable-usage-stats"], env)
    procs = [head]
    try:
        hide = f'mount -t tmpfs none "{out}" && test ! -e "{out}/visible-to-the-head-only" && exec "$@"'
        node = _start(["unshare", "--mount", "--propagation", "private", "sh", "-c", hide, "sh",
                       str(RAY), "start", "--block", f"--address={address}", "--num-cpus=2",
                       '--resources={"render_node": 2}', "--node-ip-address=127.0.0.1", "--disable-usage-stats"],
                      env)
        procs.append(node)
        _wait_for_head(port, procs)
        cfg = run_config(out, n=4, executor="ray", ray_address=address, ray_resources={"render_node": 1},
                         faults={"raise_in": ["random-00000"], "raise_times": 1})
        driver = subprocess.run([sys.executable, "-c", DRIVER, address, cfg.model_dump_json()], env=env,
                                capture_output=True, text=True, timeout=480)
    finally:
        for p in reversed(procs):
            _stop(p)
        shutil.rmtree(ray_tmp, ignore_errors=True)

    assert driver.returncode == 0, driver.stderr[-3000:]
    assert "FRAMES 4 FAILED 0" in driver.stdout
    run_dir = out / "calib"
    assert _stable(run_dir) == _stable(local)
    fails = [line for line in (run_dir / "failures.jsonl").read_text().splitlines()]
    # the raising scene was split into one job per view (plan.split_tail), each retried once
    assert len(fails) == 4 and all("InjectedFault" in f for f in fails)
    shipped, expected = _store_files(run_dir), _store_files(local)
    assert sorted(shipped) == sorted(expected) and len(expected) == 4 + 4 + 2    # jpg, passes, the scene json and mesh
    for rel, data in expected.items():
        assert shipped[rel] == data, f"{rel} differs"
