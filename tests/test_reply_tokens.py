"""`score --reply-tokenizer`: thinking tokens of records with one output count (RealityBench §4 /
Table 11: the count minus the reply's tokens under the provider's tokenizer), with a tokenizer
trained here in-process (nothing is downloaded); without it such thinking is "not derivable"."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_lmms_eval_export import RB_KINDS
from test_score_cli import make_run

from scenebench.cli import main
from scorers.reply_tokens import TokenizerError, load_reply_tokenizer

REPLY = '{"adequate": true, "gap_in": 3.0}'
# Whitespace pre-tokenizer (\w+|[^\w\s]+), one WordLevel token per piece, unknown pieces included:
# {"  adequate  ":  true  ,  "  gap_in  ":  3  .  0  }  -> 12
REPLY_TOKENS = 12


@pytest.fixture(scope="module")
def tokenizer_json(tmp_path_factory) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(["adequate true false gap_in reading_in", '{" ": , } .'],
                            trainers.WordLevelTrainer(special_tokens=["[UNK]"]))
    path = tmp_path_factory.mktemp("tok") / "tokenizer.json"
    tok.save(str(path))
    return path


def test_counts_by_hand(tokenizer_json):
    count = load_reply_tokenizer(tokenizer_json)
    assert count(REPLY) == REPLY_TOKENS
    assert count("") == 0
    assert count("gap_in gap_in zebra") == 3           # an unknown word is one [UNK] token
    assert count("3.25") == 3


def test_bad_tokenizer_files(tmp_path):
    with pytest.raises(TokenizerError, match=r"^reply tokenizer .*nope.json does not exist$"):
        load_reply_tokenizer(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a tokenizer"}')
    with pytest.raises(TokenizerError) as caught:
        load_reply_tokenizer(bad)
    assert str(caught.value) == f"{bad}: not a Hugging Face tokenizers file (expected `,` or `}}` at line 1 column 7)"
    with pytest.raises(TokenizerError) as caught:
        load_reply_tokenizer(tmp_path)
    assert str(caught.value) == f"{tmp_path} is not a file"


def test_a_long_parse_error_is_cut_to_120_characters(tokenizer_json, tmp_path):
    doc = json.loads(tokenizer_json.read_text())
    doc["added_tokens"] = [{"id": "Z" * 150}]                  # tokenizers quotes the bad value in its error
    bad = tmp_path / "long.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(TokenizerError) as caught:
        load_reply_tokenizer(bad)
    reason = str(caught.value).split(" file (", 1)[1][:-1]
    assert len(reason) == 120 and reason.startswith('invalid type: string "ZZZ') and reason.endswith("Z")


def test_the_size_limit_is_256_mib_inclusive(tmp_path):
    """Sparse files: exactly the limit is read (and is no tokenizer), one byte more is refused unread."""
    at, over = tmp_path / "at.json", tmp_path / "over.json"
    for path, size in ((at, 256 << 20), (over, (256 << 20) + 1)):
        with open(path, "wb") as f:
            f.truncate(size)
    with pytest.raises(TokenizerError) as caught:
        load_reply_tokenizer(over)
    assert str(caught.value) == f"{over}: larger than 256 MiB (not a tokenizer.json?)"
    with pytest.raises(TokenizerError, match="not a Hugging Face tokenizers file"):
        load_reply_tokenizer(at)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    from packagers.hf_export import export_realitybench

    base = tmp_path_factory.mktemp("rt")
    runs = [make_run(base / "runs" / env, env, "random", kinds) for env, kinds in RB_KINDS.items()]
    return export_realitybench(runs, base / "datasets", None).root


def _preds(path: Path, usage: dict) -> Path:
    ids = [f"{e}-random-{i // 2:05d}-{i % 2:02d}" for e in RB_KINDS for i in range(4)]
    path.write_text("".join(json.dumps({"id": i, "model": "m", "response": REPLY, "usage": usage.get(i)}) + "\n"
                            for i in ids))
    return path


USAGE = {"tape_gap-random-00000-00": {"prompt_tokens": 100, "completion_tokens": 40},      # 12 reply + 28 thinking
         "tape_gap-random-00000-01": {"prompt_tokens": 100, "completion_tokens": 5},       # below the reply: no split
         "tape_gap-random-00001-00": {"prompt_tokens": 100, "completion_tokens": 30,
                                      "completion_tokens_details": {"reasoning_tokens": 10}}}


def _score(dataset, preds, out, *extra) -> tuple[int, dict]:
    rc = main(["score", "--dataset", str(dataset), "--predictions", str(preds), "--report-dir", str(out),
               "--n-resamples", "20", "--n-paired", "20", *extra])
    return rc, json.loads((out / "metrics.json").read_text())["models"]["m"] if rc == 0 else {}


def test_score_splits_single_counts(dataset, tokenizer_json, tmp_path, capsys):
    preds = _preds(tmp_path / "m.jsonl", USAGE)
    rc, m = _score(dataset, preds, tmp_path / "r", "--reply-tokenizer", str(tokenizer_json))
    assert rc == 0
    c = m["cost"]
    assert (c["prompt_tokens"], c["output_tokens"], c["thinking_tokens"]) == (300, 12 + 5 + 20, 28 + 10)
    assert (c["mean_thinking_tokens"], c["n_thinking_not_derivable"], c["n_with_usage"]) == (19.0, 1, 3)
    assert c["note"].endswith("thinking not derivable for 1 of 3 frames (one output count; score --reply-tokenizer "
                              "splits it)")
    assert m["predictions"]["thinking_errors"] == [
        "tape_gap-random-00000-01: output count 5 is below the reply's 12 tokens (another tokenizer than the "
        "provider's?)"]
    err = capsys.readouterr().err
    assert (f"scenebench: warning: {preds}: thinking not derived for tape_gap-random-00000-01: output count 5 is "
            "below the reply's 12 tokens") in err


def test_without_the_tokenizer_thinking_is_not_derivable(dataset, tmp_path, capsys):
    rc, m = _score(dataset, _preds(tmp_path / "m.jsonl", USAGE), tmp_path / "r")
    c = m["cost"]
    assert (c["thinking_tokens"], c["mean_thinking_tokens"], c["n_thinking_not_derivable"]) == (10, 10.0, 2)
    only = {k: v for k, v in USAGE.items() if "details" not in json.dumps(v)}
    rc, m = _score(dataset, _preds(tmp_path / "o.jsonl", only), tmp_path / "o")
    assert (m["cost"]["thinking_tokens"], m["cost"]["mean_thinking_tokens"]) == (0, None)   # no measured 0
    row = next(ln for ln in (tmp_path / "o" / "report.md").read_text().splitlines() if ln.startswith("| m |")
               and "not derivable" in ln)
    assert "| not derivable | – |" in row


def test_bad_tokenizer_is_a_one_line_error(dataset, tmp_path, capsys):
    rc = main(["score", "--dataset", str(dataset), "--predictions", str(_preds(tmp_path / "m.jsonl", USAGE)),
               "--report-dir", str(tmp_path / "r"), "--reply-tokenizer", str(tmp_path / "none.json")])
    err = capsys.readouterr().err
    assert rc == 2 and err == f"scenebench: error: reply tokenizer {tmp_path / 'none.json'} does not exist\n"
    assert not (tmp_path / "r").exists()


def test_egopathbench_refuses_the_option(tmp_path, capsys, tokenizer_json):
    from test_egopath_export import BENCH, make_run as make_ep_run

    from packagers.egopath_release import export_release

    root = export_release([make_ep_run(tmp_path / "runs")], tmp_path / "ds", BENCH, log=lambda s: None).root
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"id": "x", "response": "[1]"}\n')
    assert main(["score", "--dataset", str(root), "--predictions", str(preds), "--report-dir", str(tmp_path / "r"),
                 "--reply-tokenizer", str(tokenizer_json)]) == 2
    assert capsys.readouterr().err == ("scenebench: error: egopathbench reports no token usage, so --reply-tokenizer "
                                       "has nothing to split\n")
