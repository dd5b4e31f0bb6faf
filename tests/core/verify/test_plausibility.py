"""The rooflines: the DRAM bound that flags impossible times, the copy floor that explains
why a memory-bound function cannot be faster end to end."""

from __future__ import annotations

import numpy as np

from regrapht_core.contracts.evaluation import Timing
from regrapht_core.contracts.task import TimingMode
from regrapht_core.tasks.extract import extract_task
from regrapht_core.verify.cases import Case, returned_bytes
from regrapht_core.verify.plausibility import copy_floor_ms, roofline_ms, under_roofline
from tests.core.verify.tasks_fixture import SAXPY


def _timing(reference_ms: float, candidate_ms: float, floor: float | None) -> Timing:
    return Timing(TimingMode.END_TO_END, reference_ms, candidate_ms, 0.0, 0.0, 10, floor)


def test_inputs_go_up_outputs_come_down_and_inout_both() -> None:
    n = 1 << 20
    arrays = [
        np.array([n], np.int32),
        np.array([2.5], np.float32),
        np.zeros(n, np.float32),  # x: in
        np.zeros(n, np.float32),  # y: inout
    ]
    # x and y up at 8 MB/ms, y down at 4 MB/ms; the scalars travel as launch arguments
    floor = copy_floor_ms(SAXPY, arrays, 8e9, 4e9)
    assert floor == 1e3 * (2 * 4 * n / 8e9 + 4 * n / 4e9)


def test_a_returned_vector_comes_down_too() -> None:
    source = (
        "#include <vector>\n"
        "std::vector<float> twice(const std::vector<float>& x) {\n"
        "  std::vector<float> y(x.size());\n"
        "  for (size_t i = 0; i < x.size(); ++i) y[i] = 2.0f * x[i];\n"
        "  return y;\n"
        "}\n"
    )
    task = extract_task(source, "cpp", function="twice", validate=False)
    n = 1000
    case = Case({"n": n}, (np.zeros(n, np.float32),))
    assert returned_bytes(task, case) == 4 * n
    floor = copy_floor_ms(task, case.arrays, 8e9, 4e9, returned_bytes(task, case))
    assert floor == 1e3 * (4 * n / 8e9 + 4 * n / 4e9)


def test_copy_bound_when_the_copies_outlast_the_sequential_code() -> None:
    assert _timing(0.44, 1.2, 1.1).copy_bound
    assert not _timing(5.0, 1.2, 1.1).copy_bound
    assert not _timing(0.44, 1.2, None).copy_bound, "kernel-only timings have no floor"
    note = _timing(0.44, 1.2, 1.1).copy_bound_note()
    assert "1.1 ms" in note and "0.44 ms" in note and "keep the data on the GPU" in note


def test_a_time_under_the_dram_roofline_is_implausible() -> None:
    bound = roofline_ms(3 * 4 << 20, 3e12)
    assert under_roofline(_timing(1.0, bound / 2, None), bound) is not None
    assert under_roofline(_timing(1.0, bound * 2, None), bound) is None
