"""The editor side of the soak test: documents as the editor has them (every version it
sent), the functions in them, and a watch on the server's processes, memory and temp dirs.

The editor checks each ``workspace/applyEdit`` against its own copy of the document, so
what a "stale" edit is does not depend on the server: the text a job was asked for (its
function with the spec comment above it, and the constant it reads) must be the text the
edit is for. ASCII text with ``\\n`` line breaks only: LSP columns are string indices.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PREAMBLE = """\
// Soak document {k}: loops to optimize while the editor types around them.
#include <cstddef>
{includes}
constexpr int RADIUS = {radius};
"""
FUNCTIONS = {
    "smooth": """
// regrapht: n = 1<<20; x[n] in; y[n] out
void smooth(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = -RADIUS; k <= RADIUS; ++k) {
            int j = i + k;
            if (j >= 0 && j < n) {
                acc += x[j];
            }
        }
        y[i] = acc * (1.0f / (2 * RADIUS + 1));
    }
}
""",
    "saxpy": """
// regrapht: n = 1<<20; a = 2.5; x[n] in; y[n] inout
void saxpy(int n, float a, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
""",
    "blur": """
// regrapht: n = 1<<20; in[n] in; out[n] inout
void blur(int n, const float* in, float* out) {
    for (int i = 1; i < n - 1; ++i) {
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
    }
}
""",
}
KERNEL = """
__global__ void scale_kernel(int n, float s, float* v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= s;
}

void scale(int n, float s, float* d_v) {
    scale_kernel<<<(n + 255) / 256, 256>>>(n, s, d_v);
}
"""
RADII = (8, 16)
"""The constant's values: few, so that most candidates are compiled once per run (the
object cache is content-addressed) and a job takes about a second."""
SPEC = "// regrapht:"
CONSTANT = "constexpr int RADIUS"


def source(k: int, cuda: bool) -> str:
    """Document ``k``: three loops to optimize; a CUDA one also has a kernel and its launch."""
    includes = "#include <cuda_runtime.h>\n" if cuda else ""
    text = PREAMBLE.format(k=k, includes=includes, radius=RADII[k % len(RADII)])
    names = list(FUNCTIONS)
    for name in names[k % 3 :] + names[: k % 3]:
        text += FUNCTIONS[name]
    return text + (KERNEL if cuda else "")


@dataclass
class Doc:
    uri: str
    path: Path
    language: str
    functions: tuple[str, ...]
    text: str
    version: int = 1
    open: bool = False
    history: dict[int, str] = field(default_factory=dict)
    """The text of every version the editor sent."""

    @property
    def disk(self) -> str:
        """What the server reads when the document is not open (the editor never saves)."""
        return self.path.read_text()

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def change(self, start: tuple[int, int], end: tuple[int, int], new: str) -> dict[str, Any]:
        """Apply an edit to the editor's copy: the ``didChange`` params that say it."""
        offsets = [0]
        for line in self.lines:
            offsets.append(offsets[-1] + len(line) + 1)
        a, b = (offsets[row] + column for row, column in (start, end))
        self.text = self.text[:a] + new + self.text[b:]
        self.version += 1
        self.history[self.version] = self.text
        where = {
            "start": {"line": start[0], "character": start[1]},
            "end": {"line": end[0], "character": end[1]},
        }
        return self.identified({"range": where, "text": new})

    def replace(self, text: str) -> dict[str, Any]:
        """The whole text at once (as after an applied edit)."""
        self.text = text
        self.version += 1
        self.history[self.version] = text
        return self.identified({"text": text})

    def identified(self, change: dict[str, Any]) -> dict[str, Any]:
        return {
            "textDocument": {"uri": self.uri, "version": self.version},
            "contentChanges": [change],
        }

    def item(self) -> dict[str, Any]:
        self.history[self.version] = self.text
        return {
            "textDocument": {
                "uri": self.uri,
                "languageId": self.language,
                "version": self.version,
                "text": self.text,
            }
        }


def make_docs(folder: Path, count: int) -> list[Doc]:
    """Half C++ (results go to a ``.regrapht.cu`` beside them), half CUDA (changed in place)."""
    docs = []
    for k in range(count):
        cuda = k % 2 == 1
        path = folder / f"doc_{k}.{'cu' if cuda else 'cpp'}"
        path.write_text(text := source(k, cuda))
        docs.append(Doc(path.as_uri(), path, "cuda-cpp" if cuda else "cpp", tuple(FUNCTIONS), text))
    return docs


@dataclass(frozen=True)
class Block:
    """Where a function is: its spec comment (``start``), its ``void`` line, its last line."""

    start: int
    head: int
    end: int


def block(text: str, name: str) -> Block | None:
    lines = text.split("\n")
    head = next((i for i, line in enumerate(lines) if line.startswith(f"void {name}(")), None)
    if head is None:
        return None
    start = head
    for row in range(head - 1, -1, -1):
        if not lines[row].startswith("//"):
            break
        if lines[row].startswith(SPEC):
            start = row
            break
    depth = 0
    for end in range(head, len(lines)):
        depth += lines[end].count("{") - lines[end].count("}")
        if depth <= 0 and "}" in lines[end]:
            return Block(start, head, end)
    return None


def fingerprint(text: str, name: str) -> str | None:
    """What a result for ``name`` depends on: its spec comment and text, and the constant
    when it reads it. Lines above may move; none of this may change. Other comments between
    the spec and the function (the pointer to a ``.regrapht.cu`` an applied job leaves in a
    C++ file, which the file on disk lacks) are not part of it."""
    found = block(text, name)
    if found is None:
        return None
    lines = text.split("\n")
    spec = lines[found.start : found.start + 1] if found.start < found.head else []
    body = "\n".join(spec + lines[found.head : found.end + 1])
    constant = next((line for line in lines if line.startswith(CONSTANT)), "")
    return body + ("\n" + constant if "RADIUS" in body else "")


def apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """A client applying one document's ``TextEdit``s (ASCII: columns are indices)."""
    offsets = [0]
    for line in text.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)

    def offset(position: dict[str, int]) -> int:
        return min(
            offsets[min(position["line"], len(offsets) - 1)] + position["character"], len(text)
        )

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        a, b = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:a] + edit["newText"] + text[b:]
    return text


# -- the server process -------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    pid: int
    started: str
    """Clock ticks after boot (``/proc/PID/stat`` field 22): a reused pid is another process."""
    name: str


def _stat(pid: int) -> tuple[str, int, str, str] | None:
    """State, parent, start time and name of a process, if it exists."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name = stat[stat.index("(") + 1 : stat.rindex(")")]
    rest = stat[stat.rindex(")") + 2 :].split()
    return rest[0], int(rest[1]), rest[19], name


def descendants(root: int) -> set[Proc]:
    """The processes whose parent chain leads to ``root``, zombies excepted."""
    children: dict[int, list[tuple[int, str, str]]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            state, parent, started, name = stat
            if state not in {"Z", "X"}:
                children.setdefault(parent, []).append((int(entry.name), started, name))
    found: set[Proc] = set()
    todo = [root]
    while todo:
        for pid, started, name in children.get(todo.pop(), []):
            found.add(Proc(pid, started, name))
            todo.append(pid)
    return found


def alive(proc: Proc) -> bool:
    stat = _stat(proc.pid)
    return stat is not None and stat[2] == proc.started and stat[0] not in {"Z", "X"}


def memory_kb(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` (the peak), in kB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in {"VmRSS", "VmHWM"}:
            values[key] = int(value.split()[0])
    return values


def scratch_roots(pid: int) -> list[Path]:
    """The server's temp directories (``regrapht_core.lifetime``: ``regrapht-<pid>-*``)."""
    return list(Path(tempfile.gettempdir()).glob(f"regrapht-{pid}-*"))
