"""The C++ corpus (``benchmarks/cxx``): ordinary C++ becomes a task and gets CUDA.

53 functions in the styles a CUDA user writes (containers, references, complex and struct
elements, members, named indices, several loops, ``<numeric>`` and ``<algorithm>`` calls).
For every entry:

- the function extracts into a task and its reference runs cleanly under AddressSanitizer
  (``validate=True``), unless the manifest says ``extract = "refuse"`` with the reason;
- the rewriter proposer answers the first step (``parallelization``) with code, unless the
  manifest says ``rewriters = "refuse"`` with the reason.

The candidates compile through the real verifier with no GPU (status ``not_run``): in CI a
subset with one entry per style, all of them with ``REGRAPHT_CXX_ALL=1``. The measured
rates (compiled on a CPU machine, verified faster on the H100) are in
``benchmarks/results/*cxx-inputs*.json``.
"""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from regrapht_core.contracts.evaluation import copy_bound
from regrapht_core.contracts.proposal import Proposal, ProposeRequest
from regrapht_core.contracts.task import Task
from regrapht_core.errors import TaskError
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.tasks.extract import extract_task
from tests.benchmarks.compiling import compile_failures

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "cxx"
COMPILE_SUBSET = (
    "vec_relu_return",  # returns a std::vector built in the function
    "red_sum_ref",  # a sum into a float& reference
    "cplx_mul",  # std::complex elements through cuda::std::complex
    "struct_particle_integrate",  # a vector of structs
    "multi_l2_normalize",  # a reduction loop, then a map loop
    "struct_pixel_gray",  # a const reference to a struct element
    "member_gain",  # a const member function reading a data member
    "span_sum_squares",  # a std::span<const float> view: the task compiles as C++20
    "vec_softmax",  # the output declared after the first loop: made first, on the host
    "vec_norm_inner_product",  # std::inner_product: written as its loop before analysis
)
"""One entry per distinct code path, compiled in CI; the rest when asked."""

Entry = dict[str, Any]
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to validate")


@cache
def manifest() -> tuple[Entry, ...]:
    with (CORPUS / "manifest.toml").open("rb") as f:
        return tuple(tomllib.load(f)["task"])


def entry(name: str) -> Entry:
    return next(e for e in manifest() if e["name"] == name)


def names(*, extracting: bool = False, coded: bool = False) -> list[str]:
    return [
        e["name"]
        for e in manifest()
        if not (extracting and e.get("extract") == "refuse")
        and not (coded and (e.get("extract") == "refuse" or e.get("rewriters") == "refuse"))
    ]


@cache
def task(name: str) -> Task:
    e = entry(name)
    source = (CORPUS / e["file"]).read_text(encoding="utf-8")
    return extract_task(source, "cpp", function=e["function"], origin=e["file"], validate=True)


def first_step(name: str) -> Proposal:
    t = task(name)
    return rewriter_propose_fn()(ProposeRequest(t, "sequential", "parallelization", t.source))


def test_manifest_lists_every_file_once() -> None:
    files = sorted(e["file"] for e in manifest())
    assert files == sorted(p.name for p in CORPUS.glob("*.cpp"))
    assert len(manifest()) >= 40
    for e in manifest():
        for key in ("extract", "rewriters"):
            assert e.get(key, "apply") in ("apply", "refuse"), e["name"]
            if e.get(key) == "refuse":
                assert e.get(f"{key}_reason"), f"{e['name']}: a refusal names its reason"


@needs_gxx
@pytest.mark.parametrize("name", names())
def test_extracts_and_validates_or_says_why(name: str) -> None:
    e = entry(name)
    if e.get("extract") == "refuse":
        with pytest.raises(TaskError, match=e["extract_reason"]):
            task(name)
        return
    assert task(name).entry == e["function"]


@needs_gxx
@pytest.mark.parametrize("name", names(extracting=True))
def test_rewriters_give_code_or_say_why(name: str) -> None:
    e = entry(name)
    proposal = first_step(name)
    if e.get("rewriters") == "refuse":
        assert proposal.code is None
        assert e["rewriters_reason"] in proposal.message
        return
    assert proposal.code is not None, proposal.message
    signature = " ".join(task(name).signature.split("{")[0].split())
    assert signature in " ".join(proposal.code.split()), "the user's signature is kept"


@pytest.mark.slow
@needs_gxx
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_candidates_compile_through_the_verifier(tmp_path: Path) -> None:
    every = os.environ.get("REGRAPHT_CXX_ALL") == "1"
    chosen = [n for n in names(coded=True) if every or n in COMPILE_SUBSET]
    assert every or len(chosen) == len(COMPILE_SUBSET), "the subset must stay compilable"
    jobs = {n: (task(n), first_step(n).code or "") for n in chosen}
    failed = compile_failures(jobs, tmp_path / "objects")
    assert not failed, failed


GPU_RUNS = (  # oldest first: a later run of a function replaces an earlier one
    "gpu-h200x4-cxx-inputs-5bc9afd.json",  # all 50, split over four H200s at once
    "gpu-h200-cxx-inputs-410fc23.json",  # its failures and near misses, one H200 alone
    "gpu-h200-cxx-inputs-6dd2e1c.json",  # more near misses alone (algorithms: gate-refused)
    "gpu-h200-cxx-inputs-7715e77.json",  # the three algorithm functions, names fixed
)


def test_the_gpu_tally_the_docs_quote_is_each_functions_latest_run() -> None:
    """benchmarks/cxx/README.md and the README quote these numbers."""
    results = CORPUS.parent / "results"
    latest: dict[str, dict[str, Any]] = {}
    for name in GPU_RUNS:
        for run in json.loads((results / name).read_text(encoding="utf-8"))["runs"]:
            if "gate_rejected" not in (run.get("failure") or ""):
                latest[run["task"]] = run
    assert set(latest) == {e["name"] for e in manifest()}
    faster = sum(1 for run in latest.values() if run["passed"])
    bound = sum(
        1
        for run in latest.values()
        if copy_bound(run.get("copy_floor_ms"), run.get("reference_ms"))
    )
    assert (len(latest), faster, bound) == (53, 30, 17)
