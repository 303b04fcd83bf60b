"""The shared vehicle scene of RealityBench's car_view, damage_view, car_plate and ro_board (pure half).

Spec modules (no bpy): `body` (the ten body styles, their parameter ranges, the car
frame, faces, panels and their adjacency, colours), `plates` (US state plate formats
and colours), `ids` (VIN with its ISO 3779 / 49 CFR 565.15 check digit, RO number,
date) and `damage` (dent / scratch / rust sites with exact areas). The environments'
`ENV`s: `car_view`, `car_plate`, `ro_board` (each with its `_build` bpy module);
`plate_texture` prints plates and the RO board (Pillow). docs/envs/vehicles.md has the
decisions.
"""
