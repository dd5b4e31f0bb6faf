"""The ReGraph: CUDA optimization techniques as nodes, transitions with verified examples.

What the rest of the core needs, importable from here; the submodules hold the rest.
"""

from regrapht_core.graph.build import build_snapshot
from regrapht_core.graph.merge import build_graph, merge_graph, merge_trajectory
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.paths import snapshot_path
from regrapht_core.graph.relabel import relabel
from regrapht_core.graph.retrieval import rank_examples
from regrapht_core.graph.snapshot import BuildInfo, Snapshot, load_snapshot, save_snapshot
from regrapht_core.graph.taxonomy import SEQUENTIAL, TECHNIQUES, Technique, technique
from regrapht_core.graph.trajectories import load_trajectory, load_trajectory_dir

__all__ = [
    "SEQUENTIAL",
    "TECHNIQUES",
    "BuildInfo",
    "ReGraph",
    "Snapshot",
    "Technique",
    "build_graph",
    "build_snapshot",
    "load_snapshot",
    "load_trajectory",
    "load_trajectory_dir",
    "merge_graph",
    "merge_trajectory",
    "rank_examples",
    "relabel",
    "save_snapshot",
    "snapshot_path",
    "technique",
]
