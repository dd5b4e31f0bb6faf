from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from click.testing import CliRunner

from regrapht_core.cli import EXIT_BUG, EXIT_USER_ERROR, main
from regrapht_core.graph.paths import SNAPSHOT_ENV
from regrapht_core.graph.snapshot import load_snapshot
from tests.core.graph.factories import trajectory_document, write_trajectory
from tests.lsp_stdio import lsp_initialize


@pytest.fixture
def trajectory_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "trajectories"
    write_trajectory(directory, trajectory_document("saxpy", ["parallelization", "unroll"]))
    write_trajectory(directory, trajectory_document("sum", ["parallelization", "warp shuffle"]))
    write_trajectory(directory, trajectory_document("scale", ["parallelization"]))
    return directory


@pytest.fixture
def snapshot(tmp_path: Path, trajectory_dir: Path) -> Path:
    out = tmp_path / "regraph.msgpack"
    result = CliRunner().invoke(
        main, ["graph", "build", "--trajectories", str(trajectory_dir), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_build_writes_the_snapshot_and_reports_counts(
    snapshot: Path, trajectory_dir: Path, tmp_path: Path
) -> None:
    graph = load_snapshot(snapshot).graph
    assert (graph.node_count, graph.edge_count, graph.example_count) == (4, 3, 5)
    assert load_snapshot(snapshot).build.trajectories == 3
    again = tmp_path / "again.msgpack"
    code, out, _ = run("graph", "build", "--trajectories", str(trajectory_dir), "--out", str(again))
    assert code == 0
    assert "4 nodes, 3 edges, 5 examples from 3 trajectories" in out
    assert again.read_bytes() == snapshot.read_bytes()


def test_build_merges_several_folders_and_counts_a_folder_named_twice_once(
    trajectory_dir: Path, tmp_path: Path
) -> None:
    mined = tmp_path / "mined"
    write_trajectory(mined, trajectory_document("axpy", ["parallelization", "unroll"]))
    both = ["--trajectories", str(trajectory_dir), "--trajectories", str(mined)]
    code, out, _ = run("graph", "build", *both, "--out", str(tmp_path / "both.msgpack"))
    assert code == 0
    assert "4 nodes, 3 edges, 7 examples from 4 trajectories" in out
    twice = [*both, "--trajectories", str(mined / ".." / "mined")]
    code, out, _ = run("graph", "build", *twice, "--out", str(tmp_path / "twice.msgpack"))
    assert code == 0 and "from 4 trajectories" in out
    assert (tmp_path / "twice.msgpack").read_bytes() == (tmp_path / "both.msgpack").read_bytes()


def test_stats_prints_real_counts_and_top_transitions(snapshot: Path) -> None:
    code, out, _ = run("graph", "stats", "--snapshot", str(snapshot))
    assert code == 0
    lines = [line.split() for line in out.splitlines()]
    assert ["nodes", "4"] in lines
    assert ["edges", "3"] in lines
    assert ["examples", "5"] in lines
    assert ["trajectories", "3"] in lines
    assert ["│", "sequential", "│", "parallelization", "│", "3", "│", "3", "│"] in lines


def test_stats_reads_the_snapshot_named_by_the_environment(
    snapshot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SNAPSHOT_ENV, str(snapshot))
    code, out, _ = run("graph", "stats")
    assert code == 0
    assert ["examples", "5"] in [line.split() for line in out.splitlines()]


def test_show_accepts_any_synonym(snapshot: Path) -> None:
    code, out, _ = run("graph", "show", "Parallelize the outer loop", "--snapshot", str(snapshot))
    assert code == 0
    assert "Parallelization (parallelization)" in out
    assert "Map independent loop iterations onto CUDA threads" in out
    assert "saxpy, scale, sum" in out
    assert "loop_unrolling" in out
    assert "warp_shuffle_reduction" in out


def test_show_a_technique_absent_from_the_snapshot(snapshot: Path) -> None:
    code, out, _ = run("graph", "show", "smem tiling", "--snapshot", str(snapshot))
    assert code == 0
    assert "Shared-memory tiling (shared_memory_tiling)" in out
    assert "No transitions in this snapshot." in out


def test_show_an_unknown_name_is_a_user_error(snapshot: Path) -> None:
    code, out, err = run("graph", "show", "cooperative groups", "--snapshot", str(snapshot))
    assert code == EXIT_USER_ERROR
    assert out == ""
    assert err.startswith("error: 'cooperative groups' is not a known CUDA optimization technique")


@pytest.mark.parametrize("fmt", ["json", "dot", "mermaid"])
def test_export_to_a_file_and_to_stdout(snapshot: Path, tmp_path: Path, fmt: str) -> None:
    target = tmp_path / f"graph.{fmt}"
    code, _, _ = run(
        "graph", "export", "--format", fmt, "--out", str(target), "--snapshot", str(snapshot)
    )
    assert code == 0
    code, out, _ = run("graph", "export", "--format", fmt, "--snapshot", str(snapshot))
    assert code == 0
    assert out == target.read_text(encoding="utf-8")
    if fmt == "json":
        assert len(json.loads(out)["edges"]) == 3
    else:
        assert "parallelization" in out


def test_missing_snapshot_names_the_path_and_the_fix(tmp_path: Path) -> None:
    missing = tmp_path / "none.msgpack"
    code, _, err = run("graph", "stats", "--snapshot", str(missing))
    assert code == EXIT_USER_ERROR
    assert str(missing) in err
    assert "regrapht graph build" in err
    assert "Traceback" not in err


def test_corrupt_snapshot_is_a_user_error(snapshot: Path) -> None:
    snapshot.write_bytes(snapshot.read_bytes()[:-1])
    code, _, err = run("graph", "stats", "--snapshot", str(snapshot))
    assert code == EXIT_USER_ERROR
    assert "truncated: the payload has" in err


def test_build_names_the_file_and_step_of_an_unknown_technique(
    trajectory_dir: Path, tmp_path: Path
) -> None:
    bad = write_trajectory(trajectory_dir, trajectory_document("zz", ["cooperative groups"]))
    out = tmp_path / "g.msgpack"
    args = ["graph", "build", "--trajectories", str(trajectory_dir), "--out", str(out)]
    code, _, err = run(*args)
    assert code == EXIT_USER_ERROR
    assert str(bad) in err
    assert "--allow-new" in err
    assert not out.exists()
    code, _, _ = run(*args, "--allow-new")
    assert code == 0
    assert load_snapshot(out).graph.has_node("cooperative_groups")


def test_malformed_trajectory_is_a_user_error(trajectory_dir: Path, tmp_path: Path) -> None:
    (trajectory_dir / "broken.json").write_text('{"schema": 1}', encoding="utf-8")
    code, _, err = run(
        "graph", "build", "--trajectories", str(trajectory_dir), "--out", str(tmp_path / "g")
    )
    assert code == EXIT_USER_ERROR
    assert "broken.json: missing key(s)" in err


def test_the_installed_console_script_runs_stats(snapshot: Path) -> None:
    script = Path(sys.executable).parent / "regrapht"
    env = {k: v for k, v in os.environ.items() if k != SNAPSHOT_ENV}
    done = subprocess.run(
        [str(script), "graph", "stats", "--snapshot", str(snapshot)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert ["examples", "5"] in [line.split() for line in done.stdout.splitlines()]
    assert done.stderr == ""


def test_show_finds_a_node_added_with_allow_new_by_its_name(
    trajectory_dir: Path, tmp_path: Path
) -> None:
    write_trajectory(trajectory_dir, trajectory_document("zz", ["Cooperative Groups"]))
    out = tmp_path / "g.msgpack"
    build = ["graph", "build", "--trajectories", str(trajectory_dir), "--out", str(out)]
    assert run(*build, "--allow-new")[0] == 0
    code, stdout, _ = run("graph", "show", "cooperative groups", "--snapshot", str(out))
    assert code == 0
    assert "cooperative groups (cooperative_groups)" in stdout
    assert "zz" in stdout


def test_export_to_an_unwritable_place_is_a_user_error(snapshot: Path, tmp_path: Path) -> None:
    target = tmp_path / "missing-dir" / "graph.dot"
    code, _, err = run(
        "graph", "export", "--format", "dot", "--out", str(target), "--snapshot", str(snapshot)
    )
    assert code == EXIT_USER_ERROR
    assert f"cannot write {target}" in err


def test_version_comes_from_the_package_metadata() -> None:
    """Install finding of #15: ``regrapht --version`` did not exist at c509905."""
    code, out, _ = run("--version")
    assert code == 0
    assert out.strip() == f"regrapht, version {version('regrapht')}"


def test_stats_json_is_one_parsable_document(snapshot: Path) -> None:
    """Install finding of #15: ``graph stats --json`` for scripts (none at c509905)."""
    code, out, _ = run("graph", "stats", "--json", "--snapshot", str(snapshot))
    assert code == 0
    document = json.loads(out)
    assert document["snapshot"] == str(snapshot)
    assert (document["nodes"], document["edges"], document["examples"]) == (4, 3, 5)
    assert document["trajectories"] == 3
    top = document["topTransitions"][0]
    assert (top["from"], top["to"], top["examples"], top["tasks"]) == (
        "sequential",
        "parallelization",
        3,
        3,
    )


def test_build_outside_a_checkout_asks_for_the_paths(
    trajectory_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed package has no trajectories and must not write into itself."""
    monkeypatch.delenv(SNAPSHOT_ENV, raising=False)
    monkeypatch.setattr("regrapht_core.graph.paths.checkout_dir", lambda: None)
    code, _, err = run("graph", "build", "--trajectories", str(trajectory_dir))
    assert code == EXIT_USER_ERROR
    assert "--out FILE" in err


@pytest.mark.parametrize(
    "error",
    [
        PermissionError(13, "Permission denied", "/x/g.msgpack"),
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"),
    ],
)
def test_os_and_unicode_errors_are_one_line_and_debug_shows_the_traceback(
    snapshot: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    """Install finding of #15 (and #17): an ``OSError`` or ``UnicodeError`` reached the user
    as a traceback at c509905."""

    def fail(path: Path) -> None:
        raise error

    monkeypatch.setattr("regrapht_core.graph.cli.load_snapshot", fail)
    code, out, err = run("graph", "stats", "--snapshot", str(snapshot))
    assert code == EXIT_USER_ERROR
    assert out == "" and err.startswith("error: ") and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    result = CliRunner().invoke(main, ["--debug", "graph", "stats", "--snapshot", str(snapshot)])
    assert result.exception is error


def test_a_bug_is_one_line_that_names_debug(
    snapshot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search's KeyError on a model's answer reached the user as a traceback at acd36c8."""
    error = KeyError("blockSize")

    def fail(path: Path) -> None:
        raise error

    monkeypatch.setattr("regrapht_core.graph.cli.load_snapshot", fail)
    code, out, err = run("graph", "stats", "--snapshot", str(snapshot))
    assert code == EXIT_BUG and out == ""
    assert err.strip() == (
        "error: a bug in ReGraphT (KeyError: 'blockSize'); "
        "run again with --debug for the traceback to report"
    )
    result = CliRunner().invoke(main, ["--debug", "graph", "stats", "--snapshot", str(snapshot)])
    assert result.exception is error


def test_lsp_over_tcp_is_refused_off_loopback() -> None:
    """The server has no authentication: ``regrapht lsp --tcp`` serves loopback only."""
    code, _, err = run("lsp", "--tcp", "192.0.2.1:2087")
    assert code == EXIT_USER_ERROR
    assert "only loopback" in err
    code, _, err = run("lsp", "--tcp", "localhost:http")
    assert code == EXIT_USER_ERROR
    assert "HOST:PORT" in err


def test_regrapht_lsp_answers_initialize_on_stdio() -> None:
    """``regrapht lsp`` is the language server: an editor can start it by that name."""
    script = Path(sys.executable).parent / "regrapht"
    assert lsp_initialize([str(script), "lsp"])["result"]["serverInfo"]["name"] == "regrapht"
