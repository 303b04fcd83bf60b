"""Shared check for the timeline prompt file's loader: each broken copy is one clear error."""
from __future__ import annotations

import json

import pytest

from packagers.vantage_tasks import timeline_clip as tc


def assert_each_broken_prompt_file_fails(path, cases) -> None:
    """Write every `(broken data, message regex)` of `cases` to `path` (where tc.PROMPTS_FILE
    points) and expect `tc.prompts()` to raise PromptError matching it; the cache is cleared
    before each load and after the last, so no broken copy outlives the check."""
    try:
        for broken, message in cases:
            path.write_text(json.dumps(broken))
            tc.prompts.cache_clear()
            with pytest.raises(tc.PromptError, match=message):
                tc.prompts()
    finally:
        tc.prompts.cache_clear()
