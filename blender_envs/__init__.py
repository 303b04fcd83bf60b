"""Everything that touches bpy, plus each environment's spec and pose samplers.

Importing this package (or an environment's spec module) never imports bpy; only the
`build` modules and `blender_envs.core` renderer modules do.
"""
