"""Pure geometry: camera model, ray casting, surface sampling, 2-D polygons, numpy mesh
parts, occupancy, feasibility graphs and the egopath view annotation. Never imports bpy."""
