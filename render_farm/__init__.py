"""render_farm package."""
