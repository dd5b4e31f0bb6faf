"""The benchmark task suite (``benchmarks/tasks``): every task extracts, validates and gets
the expected first step from the deterministic rewriters.

- Every manifest entry extracts into a :class:`Task` from its ``// regrapht:`` annotation.
- ``validate_task`` runs every reference under AddressSanitizer at two small sizes.
- For ``rewriters = "apply"`` the rewriter proposer answers the ``parallelization`` step
  with code from the named rewriter; for ``"refuse"`` it returns no code and says why.
- The "apply" candidates compile through the real verifier with no GPU (status
  ``not_run``). About 13 s per task on two cores, so CI compiles one representative task
  per code path (``VERIFY_SUBSET``); ``REGRAPHT_TASK_SUITE_ALL=1`` compiles every task
  (about 3.5 minutes on two cores).
"""

from __future__ import annotations

import os
import shutil
import tomllib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from regrapht_core.contracts.proposal import Proposal, ProposeRequest
from regrapht_core.contracts.task import SourceLanguage, Task
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.tasks.extract import extract_task
from regrapht_core.tasks.validate import validate_task
from tests.benchmarks.compiling import compile_failures

TASKS = Path(__file__).resolve().parents[2] / "benchmarks" / "tasks"
MANIFEST = TASKS / "manifest.toml"
EXPECTATIONS = ("apply", "refuse")
PRODUCERS = (
    "parallelization",
    "warp_shuffle_reduction",
    "privatization",
    "library_call",
    "algorithmic_change",
    "shared_memory_tiling",
    "register_blocking",
)
REFUSALS = ("inherent", "limitation")
VERIFY_SUBSET = (
    "trans_gelu_tanh",  # 1-D map, helper function made __host__ __device__
    "reduce_minmax",  # two integer reductions, stored through out arrays after the loop
    "image_rgb2gray",  # 2-D perfect nest over unsigned char buffers
    "sparse_spmv_csr",  # data-dependent inner loop, csr inputs, nnz parameter
    "hist_u8",  # data-indexed counts: per-block shared bins, plain atomics as fallback
    "scan_inclusive",  # running total: terms kernel and cub::DeviceScan::InclusiveSum
    "search_first",  # first match: min-reduction of the matching indices
    "recur_iir",  # linear recurrence: CUB scan of affine maps
)
"""One task per distinct rewriter code path, compiled in CI; the rest when asked."""

Entry = dict[str, Any]


@cache
def manifest() -> tuple[Entry, ...]:
    with MANIFEST.open("rb") as f:
        return tuple(tomllib.load(f)["task"])


def entry_ids() -> list[str]:
    return [e["name"] for e in manifest()]


def entry(name: str) -> Entry:
    return next(e for e in manifest() if e["name"] == name)


@cache
def task(name: str) -> Task:
    e = entry(name)
    source = (TASKS / e["file"]).read_text(encoding="utf-8")
    return extract_task(source, "cpp", function=e["function"], origin=e["file"])


def first_step(name: str) -> Proposal:
    t = task(name)
    return rewriter_propose_fn()(ProposeRequest(t, "sequential", "parallelization", t.source))


def test_manifest_lists_every_task_file_once() -> None:
    entries = manifest()
    names = [e["name"] for e in entries]
    files = [e["file"] for e in entries]
    assert len(entries) >= 24
    assert len(set(names)) == len(names), Counter(names).most_common(3)
    assert sorted(files) == sorted(p.name for p in TASKS.glob("*.cpp"))
    for e in entries:
        assert e["name"] == Path(e["file"]).stem, e
        assert e["rewriters"] in EXPECTATIONS, e
        if e["rewriters"] == "apply":
            assert e.get("producer") in PRODUCERS, e
        else:
            assert e.get("refusal") in REFUSALS and e.get("reason"), e
    families = Counter(e["family"] for e in entries)
    assert len(families) >= 10, families
    assert set(VERIFY_SUBSET) <= {e["name"] for e in entries if e["rewriters"] == "apply"}


@pytest.mark.parametrize("name", entry_ids())
def test_task_extracts(name: str) -> None:
    t = task(name)
    assert t.entry == entry(name)["function"]
    assert t.language is SourceLanguage.CPP
    assert t.timing_size in t.correctness_sizes
    assert len(t.correctness_sizes) >= 3


@pytest.mark.parametrize("name", entry_ids())
def test_rewriters_answer_the_first_step_as_expected(name: str) -> None:
    e = entry(name)
    proposal = first_step(name)
    if e["rewriters"] == "apply":
        assert proposal.code is not None, proposal.message
        assert proposal.producer == f"rewriter:{e['producer']}"
        assert "__global__" in proposal.code
    else:
        assert proposal.code is None
        assert e["reason"] in proposal.message, proposal.message


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ with AddressSanitizer")
def test_every_reference_validates_under_sanitizers() -> None:
    """About 0.5 s per task (one g++ -fsanitize=address,undefined build, two small runs)."""
    names = entry_ids()
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = dict(zip(names, pool.map(lambda n: validate_task(task(n)), names), strict=True))
    for name, done in runs.items():
        assert len(done) >= 1, name
        for run in done:
            assert run.outputs, f"{name}: no outputs at {run.binding}"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_apply_candidates_compile_through_the_verifier(tmp_path: Path) -> None:
    every = os.environ.get("REGRAPHT_TASK_SUITE_ALL") == "1"
    names = [
        e["name"]
        for e in manifest()
        if e["rewriters"] == "apply" and (every or e["name"] in VERIFY_SUBSET)
    ]
    jobs = {}
    for name in names:
        code = first_step(name).code
        assert code is not None, name
        jobs[name] = (task(name), code)
    failed = compile_failures(jobs, tmp_path / "objects")
    assert not failed, failed
