"""The committed mining output (graph_snapshots/mined, over the graph's edges, and
graph_snapshots/explored, beyond them): every trajectory a build would read is from a train
task, device-verified step by step, and counted by its task's record; the shipped snapshot
is the seed + mined + explored build, and it repeats byte for byte.

The test split judges graphs (benchmarks/results/gpu-h100-graph-compare-test-*), so a
test task's path in this folder would let a graph learn the answers it is judged on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from regrapht_core.bench.mine import MINED, RECORDS
from regrapht_core.bench.runner import load_manifest
from regrapht_core.graph.build import build_snapshot
from regrapht_core.graph.trajectories import load_trajectory_dir

ROOT = Path(__file__).resolve().parents[2]
MINED_DIR = ROOT / "graph_snapshots" / "mined"
EXPLORED_DIR = ROOT / "graph_snapshots" / "explored"
FOLDERS = pytest.mark.parametrize("folder", [MINED_DIR, EXPLORED_DIR], ids=["mined", "explored"])


def _records(folder: Path = MINED_DIR) -> dict[str, dict[str, object]]:
    return {p.stem: json.loads(p.read_text()) for p in (folder / RECORDS).glob("*.json")}


def _mined_files(folder: Path) -> list[Path]:
    return sorted((folder / MINED).glob("*.json"))


@FOLDERS
def test_every_mined_path_is_a_train_task_verified_on_a_gpu(folder: Path) -> None:
    split = {t.name: t.split for t in load_manifest(ROOT / "benchmarks/corpus/manifest.toml")}
    records = _records(folder)
    loaded = load_trajectory_dir(folder / MINED)
    assert len(loaded) >= (1000 if folder == MINED_DIR else 1)
    for path, trajectory in loaded:
        task = path.name.removesuffix(".json").split(".path")[0]
        assert split.get(task) == "train", path.name
        assert trajectory.verified_on == records[task]["device"], path.name
        speedups = [step.speedup for step in trajectory.steps]
        assert all(s is not None and s > 0 for s in speedups), path.name
        assert (speedups[-1] or 0.0) > 1.0, path.name


@FOLDERS
def test_every_record_counts_its_files_and_names_its_device(folder: Path) -> None:
    records = _records(folder)
    files = {p.name for p in (folder / MINED).glob("*.json")}
    for name, record in records.items():
        assert record["device"] and record["commit"], name
        count = record.get("trajectories") or 0
        assert isinstance(count, int)
        expected = {f"{name}.json"} | {f"{name}.path{k}.json" for k in range(2, count + 1)}
        assert expected <= files if count else f"{name}.json" not in files, name
    assert sum(int(r.get("trajectories") or 0) for r in records.values()) == len(files)
    # An explored record says so: its paths may take steps no edge of the graph held.
    assert all(
        r.get("explore") is (True if folder == EXPLORED_DIR else None) for r in records.values()
    )


def test_the_shipped_snapshot_is_the_seed_and_mined_build_and_repeats(tmp_path: Path) -> None:
    """What ships is what `graph build` makes of the seed's, the mined and the explored
    trajectories (issue 20: at least 1,000 device-verified ones), byte for byte, every time."""
    seed = ROOT / "graph_snapshots" / "trajectories"
    sources = [seed, MINED_DIR / MINED, EXPLORED_DIR / MINED]
    first = build_snapshot(sources, tmp_path / "a.msgpack")
    build_snapshot(sources, tmp_path / "b.msgpack")
    shipped = ROOT / "graph_snapshots" / "regraph.msgpack"
    assert (tmp_path / "a.msgpack").read_bytes() == shipped.read_bytes()
    assert (tmp_path / "b.msgpack").read_bytes() == shipped.read_bytes()
    mined = len(_mined_files(MINED_DIR)) + len(_mined_files(EXPLORED_DIR))
    assert first.build.trajectories == len(load_trajectory_dir(seed)) + mined
    assert first.build.trajectories >= 1000


def test_the_unanswered_list_is_the_records_without_a_trajectory() -> None:
    """The list the next mining (with the model) reads: kept equal to the records, so it
    neither mines an answered task again nor misses one the rewriters left."""
    listed = (MINED_DIR / "unanswered.txt").read_text().splitlines()
    names = [line for line in listed if line and not line.startswith("#")]
    expected = sorted(name for name, r in _records().items() if not r.get("trajectories"))
    assert names == expected
