"""Reply token counts with a tokenizer the user supplies (`score --reply-tokenizer tokenizer.json`).

RealityBench §4 / Table 11: where a provider reports only one output count, thinking tokens are
that count minus the tokens of the reply "counted with the provider's tokenizer". Nothing is
downloaded at run time, so the tokenizer is a Hugging Face `tokenizers` file (tokenizer.json)
that the user has for the model; the reply is encoded without special tokens, as the provider
counts the text it sent.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

MAX_TOKENIZER_BYTES = 256 << 20

__all__ = ["TokenizerError", "load_reply_tokenizer"]


class TokenizerError(ValueError):
    """The tokenizer file cannot be used (the message says why, in one line)."""


def load_reply_tokenizer(path: str | Path) -> Callable[[str], int]:
    """A function: reply text -> its token count under the tokenizer at `path`."""
    from tokenizers import Tokenizer

    p = Path(path)
    if not p.is_file():
        raise TokenizerError(f"reply tokenizer {p} does not exist" if not p.exists() else f"{p} is not a file")
    if p.stat().st_size > MAX_TOKENIZER_BYTES:
        raise TokenizerError(f"{p}: larger than {MAX_TOKENIZER_BYTES >> 20} MiB (not a tokenizer.json?)")
    try:
        tok = Tokenizer.from_file(str(p))
    except Exception as exc:  # tokenizers raises its own Exception type for every bad file
        raise TokenizerError(f"{p}: not a Hugging Face tokenizers file ({str(exc).splitlines()[0][:120]})") from None

    def count(text: str) -> int:
        return len(tok.encode(text, add_special_tokens=False).ids)
    return count
