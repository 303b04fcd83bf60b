"""EgoPathBench plain data (egopathbench.txt §3, App. A): what one first-person view
carries and what one question is.

The geometry (occupancy, feasibility graphs, routes) fixes every label before any
language is attached; these models are the contract between the indoor environment
(which computes a `ViewAnnotation` per rendered view), the packager (which turns
annotations into `Question`s and exports them) and the evaluator (which grades a
prediction against a `Question` alone, never against Blender).
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1

TASKS = ("point_traversability", "embodied_traversability", "point_path", "embodied_path", "intent_path")
Task = Literal["point_traversability", "embodied_traversability", "point_path", "embodied_path", "intent_path"]
TRAVERSABILITY_TASKS = ("point_traversability", "embodied_traversability")
ROUTE_TASKS = ("point_path", "embodied_path", "intent_path")
AGENT_OF_TASK = {"point_traversability": "point", "embodied_traversability": "embodied",
                 "point_path": "point", "embodied_path": "embodied", "intent_path": "embodied"}


class GeometryParams(BaseModel):
    """The nominal geometric contract (App. A); Table S8 varies radius, grid and ring."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    grid_m: float = 0.05            # occupancy cell size
    body_radius_m: float = 0.30     # embodied agent: 0.6 m diameter
    goal_ring_m: float = 0.10       # goal region: within this of the target footprint (body edge for embodied)
    corridor_step_m: float = 0.05   # swept-corridor / segment sampling step
    obstacle_min_z: float = 0.05    # geometry between these heights (above the floor) occupies a cell
    obstacle_max_z: float = 1.80


class Waypoint(BaseModel):
    """One displayed marker: its number on the overlay, where it is drawn, where it is."""

    model_config = ConfigDict(extra="forbid")
    display_id: int = Field(ge=1)
    kind: Literal["ground", "surface"]      # ground action candidate, or a visible surface negative
    pixel: list[float]                      # [u, v] OpenCV pixel (centre of the marker)
    world: list[float]                      # [x, y, z] scene point the marker stands for
    object_id: int | None = None            # surface negatives: the object hit; ground: the floor's id
    point_feasible: bool                    # a point agent can stand here
    embodied_feasible: bool                 # a 0.30 m-radius body can stand here
    clearance_m: float                      # distance to the nearest obstacle cell (capped at 5 m)


class Sheet(BaseModel):
    """One numbered overlay of a view: its waypoints (ids 1..n) and legal direct edges.

    Edges are undirected pairs [a, b] with a < b, between feasible ground waypoints
    whose straight segment (point) or swept 0.30 m corridor (embodied) is free."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["traversability", "route"]
    waypoints: list[Waypoint]
    point_edges: list[list[int]] = Field(default_factory=list)
    embodied_edges: list[list[int]] = Field(default_factory=list)


class TargetInfo(BaseModel):
    """A target instance that passed the view's frustum, distance, size and visibility filters."""

    model_config = ConfigDict(extra="forbid")
    object_id: int
    name: str                     # scene object name (unique in the scene)
    category: str                 # e.g. "chair"
    color: str                    # a colour word, e.g. "red"
    size_word: str = ""           # "small" / "large" / "" relative to its category
    room: str = ""                # room name, e.g. "kitchen"
    bbox_px: list[float]          # [x0, y0, x1, y1] of its visible pixels
    visible_surface: float        # visible fraction of its surface samples (0..1)
    distance_m: float             # camera centre to the nearest footprint point, on the floor plane
    strict_visible: bool          # bbox short side >= 64 px and visible surface >= 0.5 (App. A)
    same_category_in_view: int    # visible objects of its category, itself included
    footprint_xy: list[list[float]] = Field(default_factory=list)  # floor-plane polygon


class RouteUnit(BaseModel):
    """One (view, target) route bundle shared by Point, Embodied and Intent Path (§3.3).

    Ids refer to the view's route sheet; the start is always display id 1."""

    model_config = ConfigDict(extra="forbid")
    route_id: str
    target_object_id: int
    target_text: str                         # explicit target phrase, unique among visible objects
    start_id: int = 1
    point_goal_ids: list[int]
    embodied_goal_ids: list[int]
    point_reference: list[int] | None = None       # a verified reference route (display ids), or None
    embodied_reference: list[int] | None = None
    point_shortest_m: float | None = None          # shortest legal route length to an acceptable goal
    embodied_shortest_m: float | None = None
    embodied_narrow_fraction: float | None = None  # share of the embodied reference in clearance-sensitive cells
    intent: str | None = None                      # intent request; set only when the resolver accepted it
    intent_cues: list[str] = Field(default_factory=list)


class ViewAnnotation(BaseModel):
    """Everything the five tasks need from one rendered view (the record's ground truth)."""

    model_config = ConfigDict(extra="forbid")
    schema_version: int = SCHEMA_VERSION
    params: GeometryParams = GeometryParams()
    image_size: list[int]                    # [width, height]
    camera_xy: list[float]
    traversability: Sheet                    # ground candidates + surface negatives
    route: Sheet                             # ground waypoints + inserted required waypoints
    targets: list[TargetInfo]
    routes: list[RouteUnit]
    visible_objects: list[dict] = Field(default_factory=list)  # {object_id, name, category, color, ...} for the resolver


class Question(BaseModel):
    """One benchmark question, self-contained: the evaluator needs nothing else."""

    model_config = ConfigDict(extra="forbid")
    schema_version: int = SCHEMA_VERSION
    question_id: str
    task: Task
    split: str
    scene_id: str
    scene_group: str
    frame_id: str
    route_id: str | None = None
    system_prompt: str
    user_prompt: str
    display_ids: list[int]                   # ids drawn on this question's overlay
    waypoint_world: dict[str, list[float]]   # str(display id) -> [x, y, z], for route lengths
    waypoint_pixels: dict[str, list[float]] = Field(default_factory=dict)  # str(display id) -> [u, v], for overlays
    positives: list[int] = Field(default_factory=list)   # traversability: task-feasible ids
    start_id: int | None = None
    legal_edges: list[list[int]] = Field(default_factory=list)  # route tasks: undirected [a, b], a < b
    goal_ids: list[int] = Field(default_factory=list)
    reference_route: list[int] = Field(default_factory=list)
    shortest_m: float | None = None          # shortest legal reference length (SPL's l_i)
    target_text: str | None = None
    intent: str | None = None
    strict_visible: bool | None = None       # route questions: the target's strict-visibility flag
    answer: str                              # the verified JSON answer, e.g. "[1, 4, 7]"
