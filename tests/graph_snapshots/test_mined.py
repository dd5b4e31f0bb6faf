"""The committed mining output (graph_snapshots/mined): every trajectory a build would read
is from a train task, device-verified step by step, and counted by its task's record; the
shipped snapshot is the seed + mined build, and it repeats byte for byte.

The test split judges graphs (benchmarks/results/gpu-h100-graph-compare-test-*), so a
test task's path in this folder would let a graph learn the answers it is judged on.
"""

from __future__ import annotations

import json
from pathlib import Path

from regrapht_core.bench.mine import MINED, RECORDS
from regrapht_core.bench.runner import load_manifest
from regrapht_core.graph.build import build_snapshot
from regrapht_core.graph.trajectories import load_trajectory_dir

ROOT = Path(__file__).resolve().parents[2]
MINED_DIR = ROOT / "graph_snapshots" / "mined"


def _records() -> dict[str, dict[str, object]]:
    return {p.stem: json.loads(p.read_text()) for p in (MINED_DIR / RECORDS).glob("*.json")}


def _mined_files() -> list[Path]:
    return sorted((MINED_DIR / MINED).glob("*.json"))


def test_every_mined_path_is_a_train_task_verified_on_a_gpu() -> None:
    split = {t.name: t.split for t in load_manifest(ROOT / "benchmarks/corpus/manifest.toml")}
    records = _records()
    loaded = load_trajectory_dir(MINED_DIR / MINED)
    assert len(loaded) >= 1000
    for path, trajectory in loaded:
        task = path.name.removesuffix(".json").split(".path")[0]
        assert split.get(task) == "train", path.name
        assert trajectory.verified_on == records[task]["device"], path.name
        speedups = [step.speedup for step in trajectory.steps]
        assert all(s is not None and s > 0 for s in speedups), path.name
        assert (speedups[-1] or 0.0) > 1.0, path.name


def test_every_record_counts_its_files_and_names_its_device() -> None:
    records = _records()
    files = {p.name for p in (MINED_DIR / MINED).glob("*.json")}
    for name, record in records.items():
        assert record["device"] and record["commit"], name
        count = record.get("trajectories") or 0
        assert isinstance(count, int)
        expected = {f"{name}.json"} | {f"{name}.path{k}.json" for k in range(2, count + 1)}
        assert expected <= files if count else f"{name}.json" not in files, name
    assert sum(int(r.get("trajectories") or 0) for r in records.values()) == len(files)


def test_the_shipped_snapshot_is_the_seed_and_mined_build_and_repeats(tmp_path: Path) -> None:
    """What ships is what `graph build` makes of the seed's and the mined trajectories
    (issue 20: at least 1,000 device-verified ones), byte for byte, every time."""
    seed = ROOT / "graph_snapshots" / "trajectories"
    first = build_snapshot([seed, MINED_DIR / MINED], tmp_path / "a.msgpack")
    build_snapshot([seed, MINED_DIR / MINED], tmp_path / "b.msgpack")
    shipped = ROOT / "graph_snapshots" / "regraph.msgpack"
    assert (tmp_path / "a.msgpack").read_bytes() == shipped.read_bytes()
    assert (tmp_path / "b.msgpack").read_bytes() == shipped.read_bytes()
    assert first.build.trajectories == len(load_trajectory_dir(seed)) + len(_mined_files())
    assert first.build.trajectories >= 1000


def test_the_unanswered_list_is_the_records_without_a_trajectory() -> None:
    """The list the next mining (with the model) reads: kept equal to the records, so it
    neither mines an answered task again nor misses one the rewriters left."""
    listed = (MINED_DIR / "unanswered.txt").read_text().splitlines()
    names = [line for line in listed if line and not line.startswith("#")]
    expected = sorted(name for name, r in _records().items() if not r.get("trajectories"))
    assert names == expected
