"""`make harness-check`'s VLMEvalKit leg, inside VLMEvalKit's own code (scripts/harness_check.py runs it).

For every dataset of an exported VLMEvalKit folder: the folder's dataset class (registered as its
file does) is built by VLMEvalKit's ImageBaseDataset from the TSV, `build_prompt` runs on every row
(VLMEvalKit's dump_image writes the image cache), each prompt is answered from the replies file
by the same key as the lmms-eval stub (system prompt, prompt text and the decoded pixels of the
cached image, so it also checks the prompt), the result sheet is written with VLMEvalKit's own
`dump` (xlsx through xlsxwriter, as inference.py writes it: the data without `image`, plus
`prediction`) and `evaluate` runs on it. Prints nothing; writes {dataset: {sheet, results}} as JSON.

vlmeval's and vlmeval.dataset's __init__ files import every model and dataset module (torch and
CUDA builds); they are left out and the modules a dataset class uses are imported as they are.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # scripts/, for harness_check.request_key


def load_vlmeval() -> None:
    spec = importlib.util.find_spec("vlmeval")
    if spec is None or spec.origin is None:
        raise SystemExit("vlmevalkit_run: vlmeval is not importable (make harness-check installs it)")
    root = Path(spec.origin).parent
    for name, path in (("vlmeval", root), ("vlmeval.dataset", root / "dataset")):
        pkg = types.ModuleType(name)
        pkg.__path__ = [str(path)]
        sys.modules[name] = pkg
    ds = sys.modules["vlmeval.dataset"]
    ds.DATASET_CLASSES, ds.SUPPORTED_DATASETS = [], []    # what vlmeval/dataset/__init__ defines
    import vlmeval.dataset.image_base  # noqa: F401
    import vlmeval.smp  # noqa: F401


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--folder", required=True, help="the export's VLMEvalKit folder")
    p.add_argument("--replies", required=True, help="JSON: request key -> reply")
    p.add_argument("--work", required=True, help="VLMEvalKit's work_dir (result sheets) and LMUData")
    p.add_argument("--model", required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    work = Path(args.work)
    (work / "LMUData").mkdir(parents=True, exist_ok=True)
    os.environ["LMUData"] = str(work / "LMUData")
    load_vlmeval()
    import vlmeval.dataset as registry
    from vlmeval.dataset.image_base import ImageBaseDataset
    from vlmeval.smp import dump

    from harness_check import request_key

    folder = Path(args.folder)
    meta = json.loads((folder / "scenebench_vlmevalkit.json").read_text())
    (path,) = folder.glob("scenebench_*.py")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    (cls,) = registry.DATASET_CLASSES
    assert issubclass(cls, ImageBaseDataset) and cls.TYPE == "VQA", cls
    assert registry.SUPPORTED_DATASETS == list(meta["datasets"]), registry.SUPPORTED_DATASETS
    replies = json.loads(Path(args.replies).read_text())
    out = {}
    for name in meta["datasets"]:
        d = cls(name)
        preds = []
        for i in range(len(d.data)):
            msgs = d.build_prompt(d.data.iloc[i])
            system = next((m["value"] for m in msgs if m.get("role") == "system"), None)
            images = [Path(m["value"]).read_bytes() for m in msgs if m["type"] == "image"]
            text = "".join(m["value"] for m in msgs if m["type"] == "text" and m.get("role") != "system")
            preds.append(str(replies[request_key(system, text, images[0] if images else None)]))
        data = d.data.copy()
        data["prediction"] = preds
        if "image" in data:
            data.pop("image")
        sheet = work / args.model / f"{args.model}_{name}.xlsx"
        sheet.parent.mkdir(parents=True, exist_ok=True)
        dump(data, str(sheet))
        out[name] = {"sheet": str(sheet), "rows": len(d.data), "results": d.evaluate(str(sheet))}
    Path(args.out).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
