"""The bottom layer: on-disk contracts every other package reads and writes.

Atomic writes, canonical JSON and deterministic npz, the run store's `FrameRecord`, the
dataset layout and the predictions-file schema: one implementation each. It imports no
other scenebench package.
"""
