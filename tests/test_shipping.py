"""Frame files shipped from a worker to the coordinator (render_farm.shipping): what is carried,
what the coordinator refuses to write."""
from __future__ import annotations

import pytest

from render_farm.shipping import ShippingError, collect_files, write_files


def test_collects_every_store_file_by_relative_path_and_leaves_temporaries(tmp_path):
    (tmp_path / "frames").mkdir()
    (tmp_path / "passes" / "deep").mkdir(parents=True)
    (tmp_path / "scenes").mkdir()
    (tmp_path / "frames" / "calib-random-00000-00.jpg").write_bytes(b"\xff\xd8jpeg")
    (tmp_path / "frames" / ".calib-random-00000-01.jpg.x1.tmp").write_bytes(b"torn")
    (tmp_path / "passes" / "deep" / "a.npz").write_bytes(b"npz")
    (tmp_path / "scenes" / "random-00000.json").write_text("{}")
    (tmp_path / "records.jsonl").write_text("the coordinator's, never shipped\n")
    files = collect_files(tmp_path)
    assert files == {"frames/calib-random-00000-00.jpg": b"\xff\xd8jpeg", "passes/deep/a.npz": b"npz",
                     "scenes/random-00000.json": b"{}"}
    assert list(files) == sorted(files)


def test_writes_shipped_files_into_the_store(tmp_path):
    n = write_files(tmp_path, {"frames/f.jpg": b"abc", "scenes/s.json": b"{}"})
    assert n == 5
    assert (tmp_path / "frames" / "f.jpg").read_bytes() == b"abc"
    assert (tmp_path / "scenes" / "s.json").read_bytes() == b"{}"
    assert sorted(p.name for p in (tmp_path / "frames").iterdir()) == ["f.jpg"]    # no temporaries left


@pytest.mark.parametrize("rel", ["/etc/passwd", "../x.jpg", "frames/../../x.jpg", "records.jsonl",
                                 "manifest.json", "frames", "other/f.jpg", "frames\\..\\x.jpg"])
def test_refuses_paths_outside_the_frame_folders_and_writes_nothing(tmp_path, rel):
    with pytest.raises(ShippingError, match="refusing to write shipped file"):
        write_files(tmp_path / "run", {"frames/ok.jpg": b"ok", rel: b"evil"})
    assert not (tmp_path / "run").exists()           # every path is checked before any write
    assert not (tmp_path / "x.jpg").exists()


def test_a_job_that_writes_too_much_is_refused(tmp_path, monkeypatch):
    import render_farm.shipping as shipping

    monkeypatch.setattr(shipping, "MAX_SHIPPED_BYTES", 5)
    (tmp_path / "frames").mkdir()
    (tmp_path / "frames" / "a.jpg").write_bytes(b"123")
    assert collect_files(tmp_path) == {"frames/a.jpg": b"123"}
    (tmp_path / "frames" / "b.jpg").write_bytes(b"456")
    with pytest.raises(ShippingError, match="more than 5 bytes"):
        collect_files(tmp_path)
