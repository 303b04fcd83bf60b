"""Indoor scenes (EgoPathBench): procedural furnished floor plans, first-person views."""
