"""A subscript that scales a sum by a literal (interleaved RGB: ``3 * (y * width + x) + c``)
is written as the sum of the scaled terms, so the analysis reads it term by term."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.distribute import distribute_literal_factors
from regrapht_core.cxx.parse import parse_source
from tests.core.rewrite.support import (
    all_pass,
    first_step,
    requires_nvcc,
    run_on_gpu,
    unvalidated_task,
)


def _written(statement: str) -> str:
    source = f"void f(int* out, const int* a, int w, int y, int x, int c) {{\n  {statement}\n}}\n"
    (function,) = parse_source(source, SourceLanguage.CPP).root_node.named_children
    written = distribute_literal_factors(source, function)
    assert written.count("\n") == source.count("\n"), "lines keep their numbers"
    return written.splitlines()[1].strip()


@pytest.mark.parametrize(
    ("statement", "written"),
    [
        ("out[3 * (y * w + x) + c] = 1;", "out[y * w * 3 + x * 3 + c] = 1;"),
        ("out[(y * w + x) * 3 + c] = 1;", "out[y * w * 3 + x * 3 + c] = 1;"),
        (
            "out[4 * (y - x)] = a[2 * (x + (c << 1))];",
            "out[y * 4 - x * 4] = a[x * 2 + (c << 1) * 2];",
        ),
        ("out[2 * (-x + y)] = 0;", "out[- x * 2 + y * 2] = 0;"),
        ("out[a[3 * (x + 1)]] = 0;", "out[a[x * 3 + 1 * 3]] = 0;"),
        ("out[c - 3 * (y + x)] = 0;", "out[c - (y * 3 + x * 3)] = 0;"),
        ("out[-2 * (y - x)] = 0;", "out[y * -2 - x * -2] = 0;"),
    ],
    ids=[
        "literal-first",
        "literal-last",
        "difference-and-shift",
        "leading-minus",
        "nested",
        "subtracted",
        "negated",
    ],
)
def test_a_literal_times_a_sum_in_a_subscript_is_the_sum_of_scaled_terms(
    statement: str, written: str
) -> None:
    assert _written(statement) == written


@pytest.mark.parametrize(
    "statement",
    [
        "int z = 3 * (y + x); out[z] = 0;",
        "out[w * (y + x)] = 0;",
        "out[3 * (y)] = 0;",
        "out[3 * (y\n + x)] = 0;",
        "out[2 * (y + x) * w] = 0;",
        "out[3 * (out - p)] = 0;",
        "out[(int)(2 * (x + 0.5f))] = 0;",
    ],
    ids=[
        "outside-subscript",
        "not-a-literal",
        "one-term",
        "two-lines",
        "inside-a-product",
        "pointers",
        "inside-a-cast",
    ],
)
def test_other_products_are_left_as_written(statement: str) -> None:
    """Only a term of the index itself: inside a product the sum would bind wrongly, and
    inside a cast or a call it may be floating; a pointer difference cannot be scaled
    term by term."""
    source = f"void f(int* out, const int* p, int w, int y, int x) {{\n  {statement}\n}}\n"
    (function,) = parse_source(source, SourceLanguage.CPP).root_node.named_children
    assert distribute_literal_factors(source, function) == source


BLEND = (
    "// regrapht: width = 64; height = 48; alpha = 180\n"
    "// regrapht: a[height*width*3] in ~ int(0, 255); b[height*width*3] in ~ int(0, 255)\n"
    "// regrapht: out[height*width*3] out\n"
    "void blend(int width, int height, int alpha, const unsigned char* a,\n"
    "           const unsigned char* b, unsigned char* out) {\n"
    "  for (int y = 0; y < height; ++y)\n"
    "    for (int x = 0; x < width; ++x)\n"
    "      for (int c = 0; c < 3; ++c)\n"
    "        out[3 * (y * width + x) + c] = (unsigned char)((alpha * a[(y * width + x) * 3 + c]"
    " + (255 - alpha) * b[3 * (y * width + x) + c] + 127) / 255);\n"
    "}\n"
)


@requires_nvcc
def test_an_interleaved_rgb_blend_gets_a_kernel_that_computes_it(tmp_path: Path) -> None:
    """It was refused: the write's index was "not affine in `y`"."""
    task = unvalidated_task(BLEND, "blend")
    code, message = first_step(task)
    assert code is not None, message
    assert "out[y * width * 3 + x * 3 + c]" in code and "__global__" in code
    all_pass(task, [code], tmp_path)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_distributed_blend_computes_what_the_written_one_does(tmp_path: Path) -> None:
    """The reference the verifier times and checks against is the distributed text: it
    must be the user's program."""
    (function,) = [
        n
        for n in parse_source(BLEND, SourceLanguage.CPP).root_node.named_children
        if n.type == "function_definition"
    ]
    distributed = distribute_literal_factors(BLEND, function)
    assert distributed != BLEND
    main = (
        "#include <cstdio>\n#include <vector>\n"
        "void blend(int, int, int, const unsigned char*, const unsigned char*, unsigned char*);\n"
        "void written(int, int, int, const unsigned char*, const unsigned char*, unsigned char*);\n"
        "int main() {\n"
        "  const int w = 37, h = 11; std::vector<unsigned char> a(w * h * 3), b(a), p(a), q(a);\n"
        "  for (int k = 0; k < w * h * 3; ++k) {\n"
        "    a[k] = (k * 7919) % 251; b[k] = (k * 104729) % 241;\n  }\n"
        "  blend(w, h, 180, a.data(), b.data(), p.data());\n"
        "  written(w, h, 180, a.data(), b.data(), q.data());\n"
        '  std::printf("%d\\n", p == q); return p == q ? 0 : 1;\n}\n'
    )
    (tmp_path / "distributed.cpp").write_text(distributed)
    (tmp_path / "written.cpp").write_text(BLEND.replace("void blend(", "void written("))
    (tmp_path / "main.cpp").write_text(main)
    files = [str(tmp_path / f) for f in ("distributed.cpp", "written.cpp", "main.cpp")]
    built = subprocess.run(
        ["g++", "-O1", *files, "-o", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(tmp_path / "run")], capture_output=True, text=True, check=False)
    assert ran.stdout.strip() == "1"


@pytest.mark.gpu
@requires_nvcc
def test_the_interleaved_rgb_blend_kernel_agrees_with_the_loops_on_the_gpu(tmp_path: Path) -> None:
    task = unvalidated_task(BLEND, "blend")
    code, message = first_step(task)
    assert code is not None, message
    all_pass(task, [code], tmp_path, run=run_on_gpu)
