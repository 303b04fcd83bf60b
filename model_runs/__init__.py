"""OpenAI-compatible model clients and prediction files.

A new top-level package because the design card has no home for model calls: everything
that talks to a model server (and the JSONL predictions it leaves behind) lives here,
apart from the render farm, the scorers and the packagers, which never touch the network.
"""
