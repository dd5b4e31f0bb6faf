"""Validation runs the real reference under g++ with ASan/UBSan."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.errors import TaskError
from regrapht_core.tasks.extract import extract_task
from regrapht_core.tasks.inputs import generate_inputs
from regrapht_core.tasks.validate import validate_task

from .conftest import extract, source_path

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


def test_clean_run_returns_what_the_reference_computed() -> None:
    task = extract("saxpy.c", "saxpy")
    runs = validate_task(task, sizes=[{"n": 7}, {"n": 1000}], seed=21)
    assert [r.binding for r in runs] == [{"n": 7}, {"n": 1000}]
    for run in runs:
        inputs = generate_inputs(task, run.binding, 21)
        x, y = inputs["x"], inputs["y"]
        assert isinstance(x, np.ndarray) and isinstance(y, np.ndarray)
        expected = np.float32(0.5) * x + y
        np.testing.assert_allclose(run.outputs["y"], expected, rtol=1e-6)


def test_scalar_return_and_resized_vector() -> None:
    (run,) = validate_task(extract("reduction.c", "sum_squares"), sizes=[{"n": 257}], seed=2)
    x = generate_inputs(extract("reduction.c", "sum_squares"), {"n": 257}, 2)["x"]
    assert isinstance(x, np.ndarray)
    np.testing.assert_allclose(run.outputs["return"], [np.sum(x.astype(np.float64) ** 2)], 1e-5)
    (vec,) = validate_task(extract("vectors.cpp", "keep_positive"), sizes=[{"n": 31}], seed=2)
    values = generate_inputs(extract("vectors.cpp", "keep_positive"), {"n": 31}, 2)["values"]
    assert isinstance(values, np.ndarray)
    assert vec.outputs["kept"].tolist() == [v for v in values.tolist() if v > 0]


def test_structured_inputs_run_clean() -> None:
    assert len(validate_task(extract("spmv_csr.c", "spmv_csr"))) == 2
    assert len(validate_task(extract("pagerank.c", "pagerank_step"))) == 2


def test_wrong_length_is_caught_and_named() -> None:
    task = extract("wrong_length.c", "axpy_wrong")
    with pytest.raises(TaskError) as caught:
        validate_task(task)
    message = str(caught.value)
    assert "outside argument 'y'" in message
    assert "its length 'n-1' = 6 looks too small" in message
    assert message.endswith("// regrapht: n = 1<<16; a = 0.5; x[n] in; y[?] inout")


def test_the_guilty_argument_is_found_among_several() -> None:
    text = (
        source_path("saxpy.c")
        .read_text()
        .replace("void saxpy", "// regrapht: x[n/2] in\nvoid saxpy")
    )
    task = extract_task(text, SourceLanguage.CPP, function="saxpy", validate=False)
    with pytest.raises(TaskError, match=r"read outside argument 'x' .*'n/2' = 3"):
        validate_task(task, sizes=[{"n": 7}])


def test_undefined_behaviour_is_reported() -> None:
    source = (
        "int total(const int* v, int n) {\n"
        "    int s = 2147483600;\n"
        "    for (int i = 0; i < n; ++i) s += v[i] * 0 + 100;\n"
        "    return s;\n"
        "}\n"
    )
    task = extract_task(source, SourceLanguage.CPP, function="total", validate=False)
    with pytest.raises(TaskError, match=r"undefined behaviour: .*signed integer overflow"):
        validate_task(task, sizes=[{"n": 7}])


def test_cuda_references_are_refused() -> None:
    with pytest.raises(TaskError, match="uses CUDA"):
        validate_task(extract("kernels.cu", "fused_host"))
