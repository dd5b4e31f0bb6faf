"""Draws the extension's marketplace icon, media/icon.png (128x128), with no dependencies.

A small reasoning graph: technique nodes joined by edges, the path the search took in
green from the sequential code (bottom left) to the fastest verified version (top right).
Run ``python3 vscode-extension/media/icon.py`` after changing it; the PNG is committed.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

SIZE = 128
SCALE = 4
"""Supersampling per axis: each pixel averages SCALE**2 samples (anti-aliasing)."""

BACKGROUND = (30, 42, 56)
EDGE = (96, 116, 139)
PATH = (118, 185, 0)
NODE = (200, 212, 225)
BEST = (118, 185, 0)

NODES = [(30, 98), (62, 78), (40, 52), (94, 62), (70, 34), (100, 28)]
EDGES = [(0, 1), (0, 2), (2, 4), (1, 3), (2, 1), (3, 5), (4, 5), (1, 4)]
TAKEN = {(0, 1), (1, 4), (4, 5)}

Color = tuple[int, int, int]


def segment_distance(x: float, y: float, a: tuple[int, int], b: tuple[int, int]) -> float:
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - (ax + t * dx), y - (ay + t * dy))


def rounded_square(x: float, y: float, radius: float = 22.0) -> bool:
    cx = min(max(x, radius), SIZE - radius)
    cy = min(max(y, radius), SIZE - radius)
    return math.hypot(x - cx, y - cy) <= radius


def sample(x: float, y: float) -> tuple[Color, float]:
    """The color at a point, and its opacity (0 outside the rounded square)."""
    if not rounded_square(x, y):
        return BACKGROUND, 0.0
    color = BACKGROUND
    for a, b in EDGES:
        taken = (a, b) in TAKEN
        if segment_distance(x, y, NODES[a], NODES[b]) <= (4.0 if taken else 2.5):
            color = PATH if taken else EDGE
    for index, (nx, ny) in enumerate(NODES):
        best = index == len(NODES) - 1
        distance = math.hypot(x - nx, y - ny)
        if distance <= (13.0 if best else 9.0):
            color = BEST if best else NODE
            if best and distance <= 6.0:
                color = BACKGROUND
    return color, 1.0


def pixels() -> bytes:
    rows = bytearray()
    for py in range(SIZE):
        rows.append(0)  # PNG filter: none
        for px in range(SIZE):
            totals = [0.0, 0.0, 0.0]
            alpha = 0.0
            for sy in range(SCALE):
                for sx in range(SCALE):
                    color, opacity = sample(px + (sx + 0.5) / SCALE, py + (sy + 0.5) / SCALE)
                    alpha += opacity
                    for channel in range(3):
                        totals[channel] += color[channel] * opacity
            count = SCALE * SCALE
            rgb = [round(t / alpha) if alpha else 0 for t in totals]
            rows.extend([*rgb, round(255 * alpha / count)])
    return bytes(rows)


def png(raw: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


if __name__ == "__main__":
    Path(__file__).with_name("icon.png").write_bytes(png(pixels()))
