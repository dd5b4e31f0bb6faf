"""The reference unit (tasks/reference.py): the standard names nvcc declares in every unit
get their header when the file relies on that, so the unit compiles with g++ too."""

from __future__ import annotations

import shutil

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.tasks.extract import extract_task

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

DOT = (
    "{includes}"
    "double dot(const std::vector<double>& a, const std::vector<double>& b) {{\n"
    "    double s = 0;\n"
    "    for ({index} i = 0; i < a.size(); ++i) s += a[i] * b[i];\n"
    "    return s;\n"
    "}}\n"
)


def _unit(source: str, function: str, language: SourceLanguage = SourceLanguage.CPP) -> str:
    return extract_task(source, language, function=function, validate=False).source


def _includes(source: str) -> list[str]:
    return [line for line in _unit(source, "dot").splitlines() if line.startswith("#include")]


@needs_gxx
def test_size_t_with_only_vector_gets_cstddef_and_the_reference_validates() -> None:
    """g++'s ``<vector>`` does not declare ``size_t``; nvcc's pre-include does, so the file
    builds for its author. The unit now validates under AddressSanitizer as it is."""
    source = DOT.format(includes="#include <vector>\n", index="size_t")
    task = extract_task(source, SourceLanguage.CPP, function="dot", validate=True)
    assert task.source.startswith("#include <vector>\n#include <cstddef>\n\n")


@pytest.mark.parametrize(
    ("includes", "index"),
    [
        ("#include <vector>\n", "std::size_t"),
        ("#include <vector>\n#include <cstddef>\n", "size_t"),
        ("#include <vector>\n#include <stddef.h>\n", "size_t"),
        ("#include <vector>\n", "int"),
    ],
)
def test_nothing_is_added_where_the_file_includes_it_or_names_std(
    includes: str, index: str
) -> None:
    assert _includes(DOT.format(includes=includes, index=index)) == includes.splitlines()


MIX = """#include <vector>
void mix(std::vector<uint32_t>& h, int32_t k) {
    for (size_t i = 0; i < h.size(); ++i) h[i] = h[i] * 2654435761u + (uint32_t)k;
}
"""

TWICE = """__global__ void twice(float* x, size_t n) {
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
"""


def test_fixed_width_integers_get_cstdint_once() -> None:
    head = "#include <vector>\n#include <cstddef>\n#include <cstdint>\n\n"
    assert _unit(MIX, "mix").startswith(head)


def test_a_cuda_unit_is_left_to_nvcc() -> None:
    """A unit with a kernel is compiled by nvcc alone, which declares them itself."""
    assert "#include" not in _unit(TWICE, "twice", SourceLanguage.CUDA)
