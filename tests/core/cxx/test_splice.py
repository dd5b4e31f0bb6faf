"""Byte-range edits: untouched text (comments, layout, UTF-8) survives exactly."""

from __future__ import annotations

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.parse import parse_source, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits, indent_block, overlapping, render
from regrapht_core.cxx.syntax import NameAllocator, canon, declared_name, parse


def test_edits_splice_in_order_and_keep_the_rest() -> None:
    code = "int a = 1; // é\nint b = 2;\n"
    source = code.encode()
    root = parse_source(code, SourceLanguage.CPP).root_node
    numbers = [n for n in walk(root) if n.type == "number_literal"]
    edits = [Edit.replace(numbers[1], "20"), Edit.replace(numbers[0], "10"), Edit.insert(0, "/**/")]
    assert apply_edits(source, edits) == "/**/int a = 10; // é\nint b = 20;\n"
    declaration = root.named_children[2]
    assert render(declaration, edits) == "int b = 20;"
    with pytest.raises(ValueError, match="overlapping"):
        apply_edits(source, [Edit(0, 5, "x"), Edit(3, 6, "y")])


@pytest.mark.parametrize(
    ("edit", "clashes"),
    [(Edit(3, 6, "y"), True), (Edit.insert(2, "y"), True), (Edit.insert(5, "y"), False)],
    ids=["across", "insertion-inside", "insertion-at-the-edge"],
)
def test_overlapping_edits_are_those_apply_edits_cannot_make_both(
    edit: Edit, *, clashes: bool
) -> None:
    assert overlapping([edit], [Edit(0, 5, "x")]) is clashes
    if clashes:
        with pytest.raises(ValueError, match="overlapping"):
            apply_edits(b"abcdefg", [Edit(0, 5, "x"), edit])
    else:
        assert apply_edits(b"abcdefg", [Edit(0, 5, "x"), edit]) == "xyfg"


def test_indent_block_reindents_from_the_original_column() -> None:
    assert indent_block("{\n        x();\n    }", 4, "  ") == "  {\n      x();\n  }"


def test_parse_refuses_half_typed_code() -> None:
    with pytest.raises(Refusal, match=r"does not parse \(line 2"):
        parse("void f() {\n  int x = ;\n}\n")


def test_syntax_helpers() -> None:
    root = parse("int a = ( m  +1 ); float *p[3];").root_node
    first, second = root.named_children
    init = first.child_by_field_name("declarator")
    value = init.child_by_field_name("value") if init is not None else None
    assert value is not None and canon(value) == "m + 1"
    name = declared_name(second.child_by_field_name("declarator"))
    assert name is not None and name.text == b"p"
    names = NameAllocator(root)
    assert [names.fresh("m"), names.fresh("m"), names.fresh("q")] == ["m2", "m3", "q"]
