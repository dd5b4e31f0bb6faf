"""The float-sum tolerance covers the reference's own rounding, as measured and committed
(``benchmarks/results/cpu-float-sum-error.json``), and the measurement can be made again."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from benchmarks.float_sum_error import errors
from regrapht_core.tasks.extract import ACCUMULATING_TOLERANCE

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def test_every_measured_drift_is_well_inside_the_tolerance_at_its_length() -> None:
    document = json.loads((RESULTS / "cpu-float-sum-error.json").read_text(encoding="utf-8"))
    for row in document["rows"]:
        bound = ACCUMULATING_TOLERANCE.at({"n": row["length"]}).atol
        assert row["atol_at_length"] == round(bound, 6)
        assert row["max_error"] * 4 < bound, row


def test_the_short_length_is_measured_again_alike() -> None:
    found = errors(4099)
    committed = json.loads((RESULTS / "cpu-float-sum-error.json").read_text(encoding="utf-8"))
    row = next(r for r in committed["rows"] if r["length"] == 4099)
    assert round(statistics.median(found), 6) == row["median_error"]
    assert round(max(found), 6) == row["max_error"]
