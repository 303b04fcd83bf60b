"""VANTAGE-Bench's infrastructure scenes (fixed CCTV cameras): the warehouse, the building
entrance; the intersection is another slice."""
