"""The Blender side shared by every environment: reset, Cycles, camera, passes, export.

Only modules named here import bpy; `device_choice` is pure logic so its selection
rules are testable anywhere.
"""
