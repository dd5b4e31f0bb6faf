"""The host-work benchmark's variants: each adds its four calls to the honest saxpy and
compiles, so the GPU run measures what it says."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks.host_work import VARIANTS
from regrapht_core.verify.compile import Compiler


def test_every_variant_adds_four_calls_before_the_frees() -> None:
    base = VARIANTS["honest_naive"]
    for name, code in VARIANTS.items():
        if name != "honest_naive":
            assert code != base and "for (int k = 0; k < 4; ++k)" in code, name
            assert code.index("for (int k") < code.index("cudaFree(dx);"), name


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_every_variant_compiles(tmp_path: Path) -> None:
    compiler = Compiler(tmp_path, "sm_90")
    for name, code in VARIANTS.items():
        outcome = compiler.cuda_object(code)
        assert outcome.ok, f"{name}: {outcome.log}"
