"""Row sizes as products: divided exactly, spelled as a loop bound is compared."""

from __future__ import annotations

from regrapht_core.cxx.affine import factors, stride_key
from regrapht_core.cxx.parse import Node
from regrapht_core.cxx.sizes import Size
from regrapht_core.cxx.syntax import parse


def expression(text: str) -> Node:
    root = parse(f"int v = {text};").root_node
    declaration = root.named_children[0]
    value = declaration.child_by_field_name("declarator").child_by_field_name("value")
    assert value is not None
    return value


def size(text: str, **values: int) -> Size:
    return Size.of(factors(expression(text)), values)


def test_a_size_divides_into_the_product_of_the_rest() -> None:
    plane = size("ny * nx")
    assert plane.over(size("nx")) == size("ny")
    assert plane.over(size("nz")) is None
    assert size("S * S", S=16).over(size("S", S=16)) == Size(16, ())
    assert size("2 * n").over(size("4")) is None  # not exactly


def test_its_key_is_the_bounds_stride_key() -> None:
    for text in ("nx", "nx * ny", "ny * nx", "2 * n", "n * n"):
        assert size(text).key() == stride_key(expression(text))
    assert size("S * 4", S=16).key() == "64" and size("S * 4", S=16).literal == 64
