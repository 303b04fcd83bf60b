"""RealityBench §3.1 rooftop solar family: one procedural roof scene (`roof_spec` draws it
as plain data, `roof_build` renders it in Blender) shared by the solar environments
(tape_gap, rail_attachment, wire_adequacy, slope_gauge, equipment_label).

Nothing is registered here: each environment module registers itself.
"""
