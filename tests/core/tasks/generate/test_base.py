"""The shared task builder: every family's file is laid out the same way, within 100 columns."""

from __future__ import annotations

from regrapht_core.tasks.generate.base import (
    ELEMENTS,
    WIDTH,
    Array,
    Container,
    alternate,
    fill,
    length,
    task,
)

F32 = ELEMENTS["float"]


def test_a_short_task_keeps_its_annotation_and_signature_on_one_line_each() -> None:
    params, head = length(Container.POINTER, "x")
    made = task(
        "scale",
        "f32_ptr",
        "scale",
        "Scales an array.",
        Container.POINTER,
        sizes=[("n", "1<<20"), ("a", "2")],
        items=[*params, "float a", Array("x", F32, "n", "in", "uniform(0, 1)")],
        body=head + "    for (int i = 0; i < n; ++i) x[i] *= a;",
        includes=["cmath"],
    )
    assert made.name == "scale_f32_ptr"
    assert made.source == (
        "// Scales an array.\n"
        "#include <cmath>\n\n"
        "// regrapht: n = 1<<20; a = 2; x[n] in ~ uniform(0, 1)\n"
        "void scale(int n, float a, const float* x) {\n"
        "    for (int i = 0; i < n; ++i) x[i] *= a;\n"
        "}\n"
    )


def test_long_comments_annotations_and_signatures_wrap_within_the_width() -> None:
    arrays = [Array(f"input_{k}", F32, "rows*cols", "in", "uniform(-1, 1)") for k in range(5)]
    params, head = length(Container.VECTOR, "input_0")
    made = task(
        "wide",
        "f32_vec",
        "wide",
        "A row-major sum of five inputs " * 6,
        Container.VECTOR,
        sizes=[("rows", "1024"), ("cols", "1024")],
        items=[*params, *arrays, Array("out", F32, "rows*cols", "out")],
        body=head + "    out[0] = input_0[0];",
        returns="int",
    )
    lines = made.source.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    assert lines.count("#include <vector>") == 1
    assert sum(line.startswith("// regrapht: ") for line in lines) > 1
    assert not any(line.endswith("-") for line in lines if line.startswith("// "))
    entry = next(k for k, line in enumerate(lines) if line.startswith("int wide("))
    assert lines[entry + 1].startswith(" " * len("int wide(") + "const std::vector<float>&")
    assert "const int n = static_cast<int>(input_0.size());" in made.source


def test_alternate_and_fill() -> None:
    assert [alternate(k) for k in range(3)] == [
        Container.POINTER,
        Container.VECTOR,
        Container.POINTER,
    ]
    assert fill("{t} x = {z}; if (a) { x = {z}; }", t="float", z="0.0f") == (
        "float x = 0.0f; if (a) { x = 0.0f; }"
    )
