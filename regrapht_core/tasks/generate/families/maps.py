"""Elementwise families: each output element from the same element of each input."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product

from regrapht_core.tasks.generate.base import (
    ELEMENTS,
    Array,
    Container,
    Element,
    Family,
    Generated,
    alternate,
    fill,
    literal,
    task,
)

__all__ = ["FAMILIES"]

_BINARY = {
    "axpby": ("a * x[i] + b * y[i]", ("a", "b"), "a scaled sum of two vectors"),
    "mul": ("x[i] * y[i]", (), "the elementwise product"),
    "sqdiff": ("(x[i] - y[i]) * (x[i] - y[i])", (), "the squared difference"),
    "lerp": ("x[i] + a * (y[i] - x[i])", ("a",), "a linear interpolation"),
}
_VALUES = {"a": "3", "b": "-2"}


def _arith() -> Iterator[Generated]:
    for (op, (expr, scalars, what)), ctype, container in product(
        _BINARY.items(), ("float", "double", "int"), Container
    ):
        e = ELEMENTS[ctype]
        dist = "uniform(-2, 2)" if e.floating else ""
        arrays = [Array("x", e, "n", "in", dist), Array("y", e, "n", "in", dist)]
        arrays.append(Array("out", e, "n", "out"))
        comment = f"Elementwise map: {what}, {e.ctype}, {container.name.lower()} arguments."
        yield task(
            "elementwise_arith",
            f"{op}_{e.tag}_{container}",
            f"{op}_map",
            comment,
            container,
            sizes=[("n", "1<<22"), *((s, _VALUES[s]) for s in scalars)],
            items=["int n", *(f"{e.ctype} {s}" for s in scalars), *arrays],
            body=_block(_loop("n", [f"out[i] = {expr};"])),
        )


# --- shared helpers -------------------------------------------------------------------

_CALL = re.compile(r"@(\w+)\(")
_NUMBER = re.compile(r"#(\d+(?:\.\d+)?)")


def _math(text: str, element: Element, container: Container) -> str:
    """Spell a template for ``element``: ``@exp(`` is ``expf(`` / ``exp(`` in C style
    (pointer arguments) and ``std::exp(`` in C++ style (vectors); ``#0.5`` is a literal."""

    def call(match: re.Match[str]) -> str:
        name = match.group(1)
        if container is Container.VECTOR:
            return f"std::{name}("
        return f"{name}{element.suffix}("

    text = _CALL.sub(call, text)
    return _NUMBER.sub(lambda m: literal(float(m.group(1)), element), text)


def _loop(bound: str, body: list[str], index: str = "i") -> list[str]:
    return [
        f"for (int {index} = 0; {index} < {bound}; ++{index}) {{",
        *(f"    {line}" for line in body),
        "}",
    ]


def _block(lines: list[str]) -> str:
    """A function body from its lines, each given at its own indentation."""
    return "\n".join(f"    {line}" if line else "" for line in lines)


# --- transcendental -------------------------------------------------------------------

_GELU_TANH = """\
static {T} gelu_tanh({T} v) {
    const {T} k = #0.7978845608028654;  // sqrt(2/pi)
    {T} inner = k * (v + #0.044715 * v * v * v);
    return #0.5 * v * (#1 + @tanh(inner));
}"""

_TRANSCENDENTAL: dict[str, tuple[str, str, tuple[str, ...], tuple[str, ...], str]] = {
    # op: (what, input distribution, scalars, outputs, loop body; @f( a math call, #c a literal)
    "gauss": ("a Gaussian bump exp(-x^2/2)", "uniform(-6, 6)", (), ("y",),
              "y[i] = @exp(-#0.5 * x[i] * x[i]);"),
    "xlogx": ("the entropy term x*log(x) of positive inputs", "uniform(0.001, 10)", (), ("y",),
              "y[i] = x[i] * @log(x[i]);"),
    "sincos": ("sine and cosine, two outputs", "uniform(-8, 8)", (), ("s", "c"),
               "s[i] = @sin(x[i]);\nc[i] = @cos(x[i]);"),
    "softclip": ("soft clipping a*tanh(x/a)", "uniform(-8, 8)", ("a",), ("y",),
                 "y[i] = a * @tanh(x[i] / a);"),
    "sigmoid": ("the logistic sigmoid", "uniform(-10, 10)", (), ("y",),
                "y[i] = #1 / (#1 + @exp(-x[i]));"),
    "softplus": ("softplus log(1 + exp(x)), linear above 20", "uniform(-30, 30)", (), ("y",),
                 "{T} v = x[i];\ny[i] = v > #20 ? v : @log1p(@exp(v));"),
    "gelu_tanh": ("GELU, tanh approximation, through a helper", "uniform(-5, 5)", (), ("y",),
                  "y[i] = gelu_tanh(x[i]);"),
    "gelu_erf": ("exact GELU with erf", "uniform(-5, 5)", (), ("y",),
                 "{T} v = x[i];\ny[i] = #0.5 * v * (#1 + @erf(v * #0.7071067811865476));"),
    "pow": ("a power x^p of non-negative inputs", "uniform(0, 4)", ("p",), ("y",),
            "y[i] = @pow(x[i], p);"),
    "rsqrt": ("a reciprocal square root 1/sqrt(x + eps)", "uniform(0, 100)", ("eps",), ("y",),
              "y[i] = #1 / @sqrt(x[i] + eps);"),
}  # fmt: skip
_TRANSCENDENTAL_SIZES = {
    "gauss": "1<<24",
    "xlogx": "1<<24",
    "sigmoid": "1<<24",
    "rsqrt": "1<<24",
    "pow": "1<<23",
}
"""Cheap ops get more elements, so every reference runs for 10 ms or more."""
_TRANSCENDENTAL_VALUES = {"a": "2.5", "p": "2.2", "eps": "0.0001"}


def _transcendental() -> Iterator[Generated]:
    for index, ((op, (what, dist, scalars, outs, expr)), ctype) in enumerate(
        product(_TRANSCENDENTAL.items(), ("float", "double"))
    ):
        e = ELEMENTS[ctype]
        container = alternate(index + index // 2)
        arrays = [Array("x", e, "n", "in", dist), *(Array(o, e, "n", "out") for o in outs)]
        body = _loop("n", _math(fill(expr, T=e.ctype), e, container).split("\n"))
        helper = ""
        if op == "gelu_tanh":
            helper = _math(fill(_GELU_TANH, T=e.ctype), e, container)
        style = "std:: overloads" if container is Container.VECTOR else "C math functions"
        comment = (
            f"Transcendental map: {what}, {e.ctype}, {container.name.lower()} arguments, {style}."
        )
        yield task(
            "transcendental",
            f"{op}_{e.tag}_{container}",
            f"{op}_map",
            comment,
            container,
            sizes=[
                ("n", _TRANSCENDENTAL_SIZES.get(op, "1<<22")),
                *((s, _TRANSCENDENTAL_VALUES[s]) for s in scalars),
            ],
            items=["int n", *(f"{e.ctype} {s}" for s in scalars), *arrays],
            body=_block(body),
            includes=("cmath",),
            helpers=helper,
        )


# --- elementwise_int ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _IntOp:
    """One integer map: inputs ``x`` (and ``w``) of ``ctype`` give ``y`` of ``out``."""

    what: str
    ctype: str
    out: str
    body: str
    dist: str = ""
    scalars: tuple[tuple[str, str, str], ...] = ()
    """(type, name, annotation value)."""
    binary: bool = False
    helper: str = ""
    includes: tuple[str, ...] = ()
    size: str = "1<<22"


_MIX32 = """\
static unsigned int mix32(unsigned int h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}"""

_U32 = "int(0, 4000000000)"
_U8 = "int(0, 255)"

_INT_OPS: dict[str, _IntOp] = {
    "murmur": _IntOp(
        "a murmur3 finaliser of the seeded value",
        "unsigned int", "unsigned int", "y[i] = mix32(x[i] ^ seed);", _U32,
        (("unsigned int", "seed", "2654435769"),), helper=_MIX32, size="1<<24",
    ),
    "xorshift": _IntOp(
        "four xorshift32 rounds",
        "unsigned int", "unsigned int",
        "unsigned int h = x[i] | 1u;\nfor (int r = 0; r < 4; ++r) {\n    h ^= h << 13;\n"
        "    h ^= h >> 17;\n    h ^= h << 5;\n}\ny[i] = h;",
        _U32, size="1<<24",
    ),
    "pcg": _IntOp(
        "a PCG-style output permutation of an LCG step",
        "unsigned int", "unsigned int",
        "unsigned int state = x[i] * 747796405u + 2891336453u;\n"
        "unsigned int word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;\n"
        "y[i] = (word >> 22u) ^ word;",
        _U32, size="1<<24",
    ),
    "popcount": _IntOp(
        "the number of set bits, counted bit by bit",
        "unsigned int", "int",
        "int count = 0;\nfor (unsigned int v = x[i]; v != 0u; v >>= 1) {\n"
        "    count += (int)(v & 1u);\n}\ny[i] = count;",
        _U32,
    ),
    "popcount_kernighan": _IntOp(
        "the number of set bits, clearing the lowest set bit each step",
        "unsigned int", "unsigned char",
        "unsigned char count = 0;\nfor (unsigned int v = x[i]; v != 0u; v &= v - 1u) {\n"
        "    ++count;\n}\ny[i] = count;",
        _U32,
    ),
    "popcount8": _IntOp(
        "the number of set bits of a byte",
        "unsigned char", "unsigned char",
        "unsigned char v = x[i];\nunsigned char count = 0;\nfor (int b = 0; b < 8; ++b) {\n"
        "    count += (v >> b) & 1;\n}\ny[i] = count;",
        _U8, size="1<<24",
    ),
    "parity": _IntOp(
        "the parity of a word by xor folding",
        "unsigned int", "unsigned char",
        "unsigned int v = x[i];\nv ^= v >> 16;\nv ^= v >> 8;\nv ^= v >> 4;\nv ^= v >> 2;\n"
        "v ^= v >> 1;\ny[i] = (unsigned char)(v & 1u);",
        _U32, size="1<<25",
    ),
    "parity8": _IntOp(
        "the parity of a byte, bit by bit",
        "unsigned char", "unsigned char",
        "unsigned char p = 0;\nfor (unsigned char v = x[i]; v != 0; v >>= 1) {\n"
        "    p ^= v & 1;\n}\ny[i] = p;",
        _U8, size="1<<24",
    ),
    "bitfield": _IntOp(
        "a bit field (x >> shift) & mask",
        "unsigned int", "unsigned int", "y[i] = (x[i] >> shift) & mask;", _U32,
        (("unsigned int", "shift", "7"), ("unsigned int", "mask", "1023")), size="1<<25",
    ),
    "rotl": _IntOp(
        "a left rotation by r bits",
        "unsigned int", "unsigned int", "y[i] = (x[i] << r) | (x[i] >> (32u - r));", _U32,
        (("unsigned int", "r", "13"),), size="1<<25",
    ),
    "gray": _IntOp(
        "the Gray code x ^ (x >> 1)",
        "unsigned int", "unsigned int", "y[i] = x[i] ^ (x[i] >> 1);", _U32, size="1<<25",
    ),
    "ungray": _IntOp(
        "the inverse Gray code, a prefix xor over the bits",
        "unsigned int", "unsigned int",
        "unsigned int v = x[i];\nfor (unsigned int s = 1u; s < 32u; s <<= 1) {\n"
        "    v ^= v >> s;\n}\ny[i] = v;",
        _U32, size="1<<24",
    ),
    "bitreverse": _IntOp(
        "the bits in reverse order, one bit per step",
        "unsigned int", "unsigned int",
        "unsigned int v = x[i];\nunsigned int r = 0u;\nfor (int b = 0; b < 32; ++b) {\n"
        "    r = (r << 1) | (v & 1u);\n    v >>= 1;\n}\ny[i] = r;",
        _U32,
    ),
    "byteswap": _IntOp(
        "the bytes in reverse order",
        "unsigned int", "unsigned int",
        "unsigned int v = x[i];\ny[i] = (v >> 24) | ((v >> 8) & 0xff00u) | "
        "((v << 8) & 0xff0000u) | (v << 24);",
        _U32, size="1<<24",
    ),
    "clamp": _IntOp(
        "a clamp into [lo, hi] with conditionals",
        "int", "int", "int v = x[i];\ny[i] = v < lo ? lo : (v > hi ? hi : v);", "",
        (("int", "lo", "-100"), ("int", "hi", "250")), size="1<<24",
    ),
    "clamp_minmax": _IntOp(
        "a clamp into [lo, hi] with std::min and std::max",
        "int", "int", "y[i] = std::min(std::max(x[i], lo), hi);", "",
        (("int", "lo", "0"), ("int", "hi", "255")), includes=("algorithm",), size="1<<24",
    ),
    "clamp_video": _IntOp(
        "a clamp of bytes into the video range [lo, hi]",
        "unsigned char", "unsigned char",
        "unsigned char v = x[i];\ny[i] = v < lo ? lo : (v > hi ? hi : v);", _U8,
        (("unsigned char", "lo", "16"), ("unsigned char", "hi", "235")), size="1<<24",
    ),
    "satadd": _IntOp(
        "a saturating add of two byte arrays",
        "unsigned char", "unsigned char",
        "int s = x[i] + w[i];\ny[i] = (unsigned char)(s > 255 ? 255 : s);", _U8,
        binary=True, size="1<<24",
    ),
    "satsub": _IntOp(
        "a saturating subtraction of two byte arrays",
        "unsigned char", "unsigned char",
        "y[i] = x[i] > w[i] ? (unsigned char)(x[i] - w[i]) : (unsigned char)0;", _U8,
        binary=True, size="1<<24",
    ),
    "absdiff": _IntOp(
        "the absolute difference of two byte arrays",
        "unsigned char", "unsigned char",
        "int d = (int)x[i] - (int)w[i];\ny[i] = (unsigned char)(d < 0 ? -d : d);", _U8,
        binary=True, size="1<<24",
    ),
    "digitsum": _IntOp(
        "the sum of the decimal digits of |x|",
        "int", "int",
        "int v = x[i] < 0 ? -x[i] : x[i];\nint s = 0;\nwhile (v > 0) {\n    s += v % 10;\n"
        "    v /= 10;\n}\ny[i] = s;",
        "int(-1000000, 1000000)",
    ),
    "shiftmask": _IntOp(
        "shifts and masks that repack the low byte and a nibble",
        "int", "int", "int v = x[i];\ny[i] = ((v & 0xff) << 4) | ((v >> 8) & 0xf);",
        "int(-100000, 100000)", size="1<<24",
    ),
}  # fmt: skip


def _elementwise_int() -> Iterator[Generated]:
    for index, (name, op) in enumerate(_INT_OPS.items()):
        e, o = ELEMENTS[op.ctype], ELEMENTS[op.out]
        container = alternate(index)
        arrays = [Array("x", e, "n", "in", op.dist)]
        if op.binary:
            arrays.append(Array("w", e, "n", "in", op.dist))
        arrays.append(Array("y", o, "n", "out"))
        kinds = " and ".join(dict.fromkeys([e.ctype, o.ctype]))
        comment = f"Integer map: {op.what}, {kinds}, {container.name.lower()} arguments."
        yield task(
            "elementwise_int",
            f"{name}_{e.tag}_{container}",
            f"{name}_map",
            comment,
            container,
            sizes=[("n", op.size), *((s, v) for _, s, v in op.scalars)],
            items=["int n", *(f"{t} {s}" for t, s, _ in op.scalars), *arrays],
            body=_block(_loop("n", op.body.split("\n"))),
            includes=op.includes,
            helpers=op.helper,
        )


# --- image_pointwise ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _PixelOp:
    """A per-pixel image op; ``body`` indexes pixels as ``{p}`` and interleaved RGB
    samples as ``{p3}`` (the first channel of pixel ``{p}``)."""

    what: str
    inputs: tuple[tuple[str, str, int], ...]
    """(name, element type, channels)."""
    outputs: tuple[tuple[str, str, int], ...]
    body: str
    scalars: tuple[tuple[str, str, str], ...] = ()
    includes: tuple[str, ...] = ()
    height: str = "4096"
    """The timing image is 4096 wide and this high."""


_PIXEL_OPS: dict[str, _PixelOp] = {
    "gray_u8": _PixelOp(
        "interleaved 8-bit RGB to 8-bit gray with integer weights",
        (("rgb", "unsigned char", 3),), (("gray", "unsigned char", 1),),
        "int r = rgb[{p3}];\nint g = rgb[{p3} + 1];\nint b = rgb[{p3} + 2];\n"
        "gray[{p}] = (unsigned char)((77 * r + 150 * g + 29 * b + 128) >> 8);",
    ),
    "gray_u8_f32": _PixelOp(
        "interleaved 8-bit RGB to float luma in [0, 1] (BT.601 weights)",
        (("rgb", "unsigned char", 3),), (("luma", "float", 1),),
        "luma[{p}] = (0.299f * rgb[{p3}] + 0.587f * rgb[{p3} + 1] + 0.114f * rgb[{p3} + 2])"
        " / 255.0f;",
    ),
    "gray_f32": _PixelOp(
        "interleaved float RGB to relative luminance (BT.709 weights)",
        (("rgb", "float", 3),), (("lum", "float", 1),),
        "lum[{p}] = 0.2126f * rgb[{p3}] + 0.7152f * rgb[{p3} + 1] + 0.0722f * rgb[{p3} + 2];",
    ),
    "gamma_f32": _PixelOp(
        "gamma correction with powf on a float image",
        (("img", "float", 1),), (("out", "float", 1),),
        "out[{p}] = powf(img[{p}], gamma);",
        (("float", "gamma", "0.4545"),), ("cmath",),
    ),
    "gamma_f64": _PixelOp(
        "gamma correction with std::pow on a double image, then scaled to [0, 255]",
        (("img", "double", 1),), (("out", "double", 1),),
        "out[{p}] = 255.0 * std::pow(img[{p}], gamma);",
        (("double", "gamma", "2.2"),), ("cmath",), "2048",
    ),
    "threshold_u8": _PixelOp(
        "binary threshold of an 8-bit image to 0 or 255",
        (("img", "unsigned char", 1),), (("out", "unsigned char", 1),),
        "out[{p}] = img[{p}] > t ? 255 : 0;",
        (("unsigned char", "t", "128"),),
    ),
    "threshold_f32": _PixelOp(
        "binary mask of a float image at a threshold",
        (("img", "float", 1),), (("mask", "float", 1),),
        "mask[{p}] = img[{p}] >= t ? 1.0f : 0.0f;",
        (("float", "t", "0.5"),),
    ),
    "contrast_u8": _PixelOp(
        "brightness and contrast alpha * p + beta in float, clamped to 0..255",
        (("img", "unsigned char", 1),), (("out", "unsigned char", 1),),
        "float v = alpha * img[{p}] + beta;\n"
        "out[{p}] = (unsigned char)(v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v));",
        (("float", "alpha", "1.5"), ("float", "beta", "-20")),
    ),
    "levels_u8": _PixelOp(
        "integer contrast about mid-gray plus brightness, clamped to 0..255",
        (("img", "unsigned char", 1),), (("out", "unsigned char", 1),),
        "int v = (img[{p}] - 128) * contrast / 64 + 128 + brightness;\n"
        "out[{p}] = (unsigned char)(v < 0 ? 0 : (v > 255 ? 255 : v));",
        (("int", "contrast", "80"), ("int", "brightness", "10")),
    ),
    "blend_u8": _PixelOp(
        "alpha blending of two interleaved 8-bit RGB images with a fixed alpha",
        (("a", "unsigned char", 3), ("b", "unsigned char", 3)), (("out", "unsigned char", 3),),
        "for (int c = 0; c < 3; ++c) {\n"
        "    out[{p3} + c] = (unsigned char)((alpha * a[{p3} + c] + (255 - alpha) * b[{p3} + c]"
        " + 127) / 255);\n}",
        (("int", "alpha", "180"),),
    ),
    "blend_f32": _PixelOp(
        "alpha blending of two float images through a per-pixel alpha matte",
        (("fg", "float", 1), ("bg", "float", 1), ("alpha", "float", 1)),
        (("out", "float", 1),),
        "out[{p}] = alpha[{p}] * fg[{p}] + (1.0f - alpha[{p}]) * bg[{p}];",
    ),
}  # fmt: skip


def _image_pointwise() -> Iterator[Generated]:
    for index, ((name, op), flat) in enumerate(product(_PIXEL_OPS.items(), (False, True))):
        container = alternate(index + index // 2)
        arrays = []
        for buffer, ctype, channels in op.inputs:
            length = "height*width" + (f"*{channels}" if channels > 1 else "")
            dist = f"image(width=width, height=height, channels={channels})"
            arrays.append(Array(buffer, ELEMENTS[ctype], length, "in", dist))
        for buffer, ctype, channels in op.outputs:
            length = "height*width" + (f"*{channels}" if channels > 1 else "")
            arrays.append(Array(buffer, ELEMENTS[ctype], length, "out"))
        sizes = [("width", "4096"), ("height", op.height), *((s, v) for _, s, v in op.scalars)]
        pixel, sample = ("i", "3 * i") if flat else ("y * width + x", "3 * (y * width + x)")
        lines = fill(op.body, p3=sample, p=pixel).split("\n")
        if flat:
            loops = _loop("width * height", lines)
        else:
            loops = _loop("height", _loop("width", lines, "x"), "y")
        shape = "one flat loop over the pixels" if flat else "rows then columns"
        comment = f"Image op: {op.what}; {shape}, {container.name.lower()} arguments."
        yield task(
            "image_pointwise",
            f"{name}_{'flat' if flat else 'rows'}_{container}",
            f"{name}_image",
            comment,
            container,
            sizes=sizes,
            items=["int width", "int height", *(f"{t} {s}" for t, s, _ in op.scalars), *arrays],
            body=_block(loops),
            includes=op.includes,
        )


# --- geometry -------------------------------------------------------------------------

_COORD = "uniform(-10, 10)"

_GEOMETRY: dict[str, tuple[str, tuple[tuple[str, str, str], ...], tuple[str, ...], str, str]] = {
    # op: (what, arrays (name, length, role), scalars, loop body, setup before the loop)
    "dist2d": (
        "the distance of 2-D points (separate x and y arrays) to a fixed point",
        (("x", "n", "in"), ("y", "n", "in"), ("d", "n", "out")), ("cx", "cy"),
        "{T} dx = x[i] - cx;\n{T} dy = y[i] - cy;\nd[i] = @sqrt(dx * dx + dy * dy);", "",
    ),
    "dist3d": (
        "the distance of interleaved 3-D points (xyz[3*n]) to a fixed point",
        (("xyz", "3*n", "in"), ("d", "n", "out")), ("cx", "cy", "cz"),
        "{T} dx = xyz[3 * i] - cx;\n{T} dy = xyz[3 * i + 1] - cy;\n{T} dz = xyz[3 * i + 2] - cz;\n"
        "d[i] = @sqrt(dx * dx + dy * dy + dz * dz);", "",
    ),
    "normalize_soa": (
        "unit vectors of 3-D vectors stored as separate x, y, z arrays (zero stays zero)",
        (("x", "n", "in"), ("y", "n", "in"), ("z", "n", "in"),
         ("ux", "n", "out"), ("uy", "n", "out"), ("uz", "n", "out")), (),
        "{T} len = @sqrt(x[i] * x[i] + y[i] * y[i] + z[i] * z[i]);\n"
        "{T} inv = len > #0 ? #1 / len : #0;\n"
        "ux[i] = x[i] * inv;\nuy[i] = y[i] * inv;\nuz[i] = z[i] * inv;", "",
    ),
    "normalize_aos": (
        "in-place normalisation of interleaved 3-D vectors (v[3*n]; zero stays zero)",
        (("v", "3*n", "inout"),), (),
        "{T} len = @sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1]"
        " + v[3 * i + 2] * v[3 * i + 2]);\n"
        "if (len > #0) {\n    v[3 * i] /= len;\n    v[3 * i + 1] /= len;\n"
        "    v[3 * i + 2] /= len;\n}", "",
    ),
    "cross_aos": (
        "cross products of interleaved 3-D vectors",
        (("a", "3*n", "in"), ("b", "3*n", "in"), ("c", "3*n", "out")), (),
        "c[3 * i] = a[3 * i + 1] * b[3 * i + 2] - a[3 * i + 2] * b[3 * i + 1];\n"
        "c[3 * i + 1] = a[3 * i + 2] * b[3 * i] - a[3 * i] * b[3 * i + 2];\n"
        "c[3 * i + 2] = a[3 * i] * b[3 * i + 1] - a[3 * i + 1] * b[3 * i];", "",
    ),
    "cross_soa": (
        "cross products of 3-D vectors stored as separate component arrays",
        (("ax", "n", "in"), ("ay", "n", "in"), ("az", "n", "in"), ("bx", "n", "in"),
         ("by", "n", "in"), ("bz", "n", "in"), ("cx", "n", "out"), ("cy", "n", "out"),
         ("cz", "n", "out")), (),
        "cx[i] = ay[i] * bz[i] - az[i] * by[i];\ncy[i] = az[i] * bx[i] - ax[i] * bz[i];\n"
        "cz[i] = ax[i] * by[i] - ay[i] * bx[i];", "",
    ),
    "rotate2d": (
        "a rotation of 2-D points by a fixed angle",
        (("x", "n", "in"), ("y", "n", "in"), ("rx", "n", "out"), ("ry", "n", "out")),
        ("angle",),
        "rx[i] = c * x[i] - s * y[i];\nry[i] = s * x[i] + c * y[i];",
        "const {T} c = @cos(angle);\nconst {T} s = @sin(angle);",
    ),
    "polar2cart": (
        "polar coordinates (r, theta) to cartesian",
        (("r", "n", "in"), ("theta", "n", "in"), ("x", "n", "out"), ("y", "n", "out")), (),
        "x[i] = r[i] * @cos(theta[i]);\ny[i] = r[i] * @sin(theta[i]);", "",
    ),
    "cart2polar": (
        "cartesian coordinates to polar (radius and atan2 angle)",
        (("x", "n", "in"), ("y", "n", "in"), ("r", "n", "out"), ("theta", "n", "out")), (),
        "r[i] = @sqrt(x[i] * x[i] + y[i] * y[i]);\ntheta[i] = @atan2(y[i], x[i]);", "",
    ),
}  # fmt: skip
_GEOMETRY_SIZES = {
    "dist2d": "1<<24",
    "dist3d": "1<<24",
    "rotate2d": "1<<24",
    "normalize_soa": "1<<23",
    "normalize_aos": "1<<23",
    "cross_aos": "1<<23",
}
"""Cheap ops get more points, so every reference runs for 10 ms or more."""
_GEOMETRY_VALUES = {"cx": "1.5", "cy": "-0.5", "cz": "2.25", "angle": "0.6"}
_GEOMETRY_DISTS = {"r": "uniform(0, 10)", "theta": "uniform(-3.14159, 3.14159)"}


def _geometry() -> Iterator[Generated]:
    for index, ((op, (what, buffers, scalars, expr, setup)), ctype) in enumerate(
        product(_GEOMETRY.items(), ("float", "double"))
    ):
        e = ELEMENTS[ctype]
        container = alternate(index + index // 2)
        arrays = [
            Array(b, e, length, role, _GEOMETRY_DISTS.get(b, _COORD) if role != "out" else "")
            for b, length, role in buffers
        ]
        sizes = [("n", _GEOMETRY_SIZES.get(op, "1<<22"))]
        sizes += [(s, _GEOMETRY_VALUES[s]) for s in scalars]

        def spell(text: str, e: Element = e, container: Container = container) -> list[str]:
            return _math(fill(text, T=e.ctype), e, container).split("\n") if text else []

        body = [*spell(setup), *_loop("n", spell(expr))]
        comment = f"Geometry map: {what}, {e.ctype}, {container.name.lower()} arguments."
        yield task(
            "geometry",
            f"{op}_{e.tag}_{container}",
            f"{op}_points",
            comment,
            container,
            sizes=sizes,
            items=["int n", *(f"{e.ctype} {s}" for s in scalars), *arrays],
            body=_block(body),
            includes=("cmath",) if "@" in expr + setup else (),
        )


# --- scatter_gather -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Indexed:
    """A gather or scatter: ``arrays`` as (name, type, length, role, dist); ``{T}`` is the
    element type, ``int`` arrays are indices."""

    what: str
    arrays: tuple[tuple[str, str, str, str, str], ...]
    body: str
    sizes: tuple[tuple[str, str], ...] = (("n", "1<<22"),)
    scalars: tuple[tuple[str, str, str], ...] = ()
    loops: tuple[str, ...] = ("n",)
    """Loop bounds, outermost first, over ``i`` then ``j``."""


_VALUE = "{dist}"
_GATHERS: dict[str, tuple[_Indexed, tuple[str, ...]]] = {
    "gather": (_Indexed(
        "a gather out[i] = x[idx[i]] through a permutation",
        (("idx", "int", "n", "in", "permutation"), ("x", "{T}", "n", "in", _VALUE),
         ("out", "{T}", "n", "out", "")),
        "out[i] = x[idx[i]];",
    ), ("float", "double", "int")),
    "scatter": (_Indexed(
        "a scatter out[perm[i]] = x[i] through a permutation",
        (("perm", "int", "n", "in", "permutation"), ("x", "{T}", "n", "in", _VALUE),
         ("out", "{T}", "n", "out", "")),
        "out[perm[i]] = x[i];",
    ), ("float", "double", "int")),
    "strided": (_Indexed(
        "a strided gather out[i] = x[i * stride]",
        (("x", "{T}", "n*stride", "in", _VALUE), ("out", "{T}", "n", "out", "")),
        "out[i] = x[i * stride];",
        (("n", "1<<23"), ("stride", "4")),
    ), ("float", "double", "int")),
    "select": (_Indexed(
        "a conditional select out[i] = mask[i] ? a[i] : b[i]",
        (("mask", "unsigned char", "n", "in", "int(0, 1)"), ("a", "{T}", "n", "in", _VALUE),
         ("b", "{T}", "n", "in", _VALUE), ("out", "{T}", "n", "out", "")),
        "out[i] = mask[i] ? a[i] : b[i];",
    ), ("float", "double", "int")),
    "lut": (_Indexed(
        "a 256-entry lookup table indexed by bytes",
        (("x", "unsigned char", "n", "in", "int(0, 255)"), ("lut", "{T}", "256", "in", _VALUE),
         ("out", "{T}", "n", "out", "")),
        "out[i] = lut[x[i]];",
        (("n", "1<<25"),),
    ), ("float", "int")),
    "embedding": (_Indexed(
        "an embedding lookup: row ids[i] of a 4096-row table, dim values per row",
        (("ids", "int", "n", "in", "int(0, 4095)"), ("table", "{T}", "4096*dim", "in", _VALUE),
         ("out", "{T}", "n*dim", "out", "")),
        "out[i * dim + j] = table[ids[i] * dim + j];",
        (("n", "1<<18"), ("dim", "64")),
        loops=("n", "dim"),
    ), ("float", "double")),
    "permute_rows": (_Indexed(
        "a row permutation of a rows x cols matrix, out row i = row perm[i] of x",
        (("perm", "int", "rows", "in", "permutation"), ("x", "{T}", "rows*cols", "in", _VALUE),
         ("out", "{T}", "rows*cols", "out", "")),
        "out[i * cols + j] = x[perm[i] * cols + j];",
        (("rows", "4096"), ("cols", "4096")),
        loops=("rows", "cols"),
    ), ("double",)),
    "invperm": (_Indexed(
        "the inverse of a permutation, inv[perm[i]] = i",
        (("perm", "int", "n", "in", "permutation"), ("inv", "int", "n", "out", "")),
        "inv[perm[i]] = i;",
        (("n", "1<<24"),),
    ), ("int",)),
}  # fmt: skip


def _scatter_gather() -> Iterator[Generated]:
    index = 0
    for name, (op, ctypes) in _GATHERS.items():
        for ctype in ctypes:
            e = ELEMENTS[ctype]
            container = alternate(index)
            index += 1
            value_dist = "uniform(-100, 100)" if e.floating else "int(-1000000, 1000000)"
            arrays = [
                Array(
                    b,
                    ELEMENTS[fill(t, T=ctype)],
                    length,
                    role,
                    value_dist if dist == _VALUE else dist,
                )
                for b, t, length, role, dist in op.arrays
            ]
            body = [op.body]
            for bound, var in reversed(list(zip(op.loops, "ij", strict=False))):
                body = _loop(bound, body, var)
            function = f"{name}_{e.tag}" if len(ctypes) > 1 else name
            comment = f"Indexed map: {op.what}, {e.ctype}, {container.name.lower()} arguments."
            yield task(
                "scatter_gather",
                f"{name}_{e.tag}_{container}",
                function,
                comment,
                container,
                sizes=op.sizes,
                items=[*(f"int {s}" for s, _ in op.sizes), *arrays],
                body=_block(body),
            )


FAMILIES = (
    Family(
        "elementwise_arith",
        "two-input arithmetic maps (axpby, product, squared difference, lerp) over float, "
        "double and int, as pointers or vectors",
        _arith,
    ),
    Family(
        "transcendental",
        "one-input maps through math functions (exp, log, sin/cos, tanh, sigmoid, softplus, "
        "GELU in tanh and erf forms, pow, rsqrt) over float and double, C names with "
        "pointers and std:: overloads with vectors",
        _transcendental,
    ),
    Family(
        "elementwise_int",
        "integer maps (hashes, popcount and parity loops, shifts, masks, rotations, bit "
        "reversal, clamps, saturating byte arithmetic, digit sums) over unsigned int, int "
        "and unsigned char",
        _elementwise_int,
    ),
    Family(
        "image_pointwise",
        "per-pixel image ops (RGB to gray, gamma, threshold, brightness/contrast, alpha "
        "blending) on 8-bit and float images, as a row/column loop nest or one flat loop",
        _image_pointwise,
    ),
    Family(
        "geometry",
        "per-point geometry (distances, normalisation in SoA and AoS layouts, cross "
        "products, rotation, polar/cartesian conversion) over float and double",
        _geometry,
    ),
    Family(
        "scatter_gather",
        "indexed maps: gathers and scatters through permutations, strided gathers, "
        "masked selects, lookup tables, embedding rows and row permutations",
        _scatter_gather,
    ),
)
