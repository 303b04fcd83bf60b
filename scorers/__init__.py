"""Acceptability terms, per-environment scorers, ground truth, grading. Never imports bpy."""
