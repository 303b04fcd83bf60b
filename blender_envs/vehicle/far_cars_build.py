"""Build the lot's far cars (`lot.FarCar`, vehicle-6) in Blender: cheap copies of distractors.

A distractor that serves as a template is merged (every part object, in the car frame, with
its materials and smooth flags) into one mesh and decimated once (`FAR_DECIMATE` of its
triangles kept); each far car is then one object sharing that mesh, so 60-90 extra cars cost
a few seconds of build and a few hundred thousand exported triangles instead of minutes and
millions. They stand beyond the clear disc (lot.py), 20 m and more from the phone, where a
car is at most a hundred pixels long: the decimation does not show there. The merge runs
before plate_build prints the distractors' plates, so far cars carry plain plates.
"""
from __future__ import annotations

import numpy as np

from blender_envs.core.bpy_env import bpy  # first: it makes mathutils importable
from mathutils import Matrix  # noqa: E402
from blender_envs.vehicle.body import car_to_world  # noqa: E402
from blender_envs.vehicle.lot import LotSpec  # noqa: E402
from geometry.scene import SceneObject  # noqa: E402

FAR_CAR_FIRST_PASS = 1000     # far car j (0-based, lot.far_cars then lot.inner_far_cars) has pass index 1000 + j
FAR_DECIMATE = 0.15           # share of a template's triangles kept


def merged_mesh(name: str, obs, world_to_car: np.ndarray):
    """One mesh of every triangle of `obs` in the car frame, one material slot per distinct
    material, each triangle's smooth flag that of its polygon."""
    V, T, MI, SM, mats = [], [], [], [], []
    off = 0
    for ob in obs:
        me = ob.data
        me.calc_loop_triangles()
        co = np.empty(len(me.vertices) * 3, np.float64)
        me.vertices.foreach_get("co", co)
        M = world_to_car @ np.array(ob.matrix_world, float)
        co = co.reshape(-1, 3) @ M[:3, :3].T + M[:3, 3]
        tri = np.empty(len(me.loop_triangles) * 3, np.int32)
        me.loop_triangles.foreach_get("vertices", tri)
        tri = tri.reshape(-1, 3)
        if np.linalg.det(M[:3, :3]) < 0:
            tri = tri[:, ::-1]
        poly = np.empty(len(me.loop_triangles), np.int32)
        me.loop_triangles.foreach_get("polygon_index", poly)
        smooth = np.zeros(len(me.polygons), bool)
        me.polygons.foreach_get("use_smooth", smooth)
        mat = me.materials[0] if len(me.materials) else None
        if mat not in mats:
            mats.append(mat)
        V.append(co)
        T.append(tri + off)
        MI.append(np.full(len(tri), mats.index(mat), np.int32))
        SM.append(smooth[poly])
        off += len(co)
    me = bpy.data.meshes.new(name)
    me.from_pydata(np.concatenate(V).tolist(), [], np.concatenate(T).tolist())
    for m in mats:
        me.materials.append(m)
    me.polygons.foreach_set("material_index", np.concatenate(MI))
    me.polygons.foreach_set("use_smooth", np.concatenate(SM))
    me.update()
    return me


def decimated(scene, me, ratio: float):
    """A new mesh: `me` after a collapse decimation keeping `ratio` of its triangles (`me` removed)."""
    tmp = bpy.data.objects.new(me.name + "_tmp", me)
    scene.collection.objects.link(tmp)
    mod = tmp.modifiers.new("decimate", "DECIMATE")
    mod.decimate_type = "COLLAPSE"
    mod.ratio = ratio
    dg = bpy.context.evaluated_depsgraph_get()
    dg.update()
    out = bpy.data.meshes.new_from_object(tmp.evaluated_get(dg), preserve_all_data_layers=False, depsgraph=dg)
    out.name = me.name + "_far"
    bpy.data.objects.remove(tmp)
    bpy.data.meshes.remove(me)
    return out


def build_far_cars(scene, lot: LotSpec) -> list[SceneObject]:
    """One object per far car, sharing its template's merged, decimated mesh; call after the
    distractors are built (their objects are named `car{k}_...`)."""
    meshes: dict[int, object] = {}
    out = []
    for j, far in enumerate(lot.far_cars + lot.inner_far_cars):
        k = far.template
        if k not in meshes:
            prefix = f"car{k}_"
            obs = sorted((o for o in scene.objects if o.name.startswith(prefix) and o.type == "MESH"),
                         key=lambda o: o.pass_index)
            inv = np.linalg.inv(car_to_world(lot.cars[k].placement))
            meshes[k] = decimated(scene, merged_mesh(f"far_template{k}", obs, inv), FAR_DECIMATE)
        ob = bpy.data.objects.new(f"far{j}", meshes[k])
        ob.matrix_world = Matrix(car_to_world(far.placement).tolist())
        ob.pass_index = FAR_CAR_FIRST_PASS + j
        scene.collection.objects.link(ob)
        out.append(SceneObject(id=ob.pass_index, name=ob.name, category="far_car", pass_index=ob.pass_index))
    return out
