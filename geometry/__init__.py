"""Pure geometry: camera model, ray casting, surface sampling. Never imports bpy."""
