"""VANTAGE-Bench's infrastructure scenes (fixed CCTV cameras): warehouse first; the
intersection and the building entrance are later slices."""
