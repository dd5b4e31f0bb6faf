"""The task: what a candidate must reproduce, on which inputs, and how it is timed.

A task is an immutable value shared by the extractor (which builds it from source), the
verifier (which generates inputs, harnesses and checks from it) and the search. Sizes are
bindings of free variables (``n``, ``m``, and scalar arguments) to numbers; every length
and scalar value is an expression over those variables, so one spec serves the tiny,
prime and timing sizes alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = [
    "ArgSpec",
    "Distribution",
    "LaunchSpec",
    "ParamKind",
    "Role",
    "SizeBinding",
    "Task",
    "TaskMode",
    "TimingMode",
    "Tolerance",
]

SizeBinding = Mapping[str, int | float]
"""Values of a task's free variables for one run, e.g. ``{"n": 1 << 20, "a": 2.5}``."""


class TaskMode(StrEnum):
    """What the candidate replaces."""

    SEQUENTIAL_TO_CUDA = "seq2cuda"
    """Candidate defines the same host function; it owns device memory and transfers."""
    KERNEL_TO_KERNEL = "kernel2kernel"
    """Candidate replaces a ``__global__`` kernel under the original launch contract."""


class TimingMode(StrEnum):
    """What a reported time covers; always carried next to every speedup."""

    END_TO_END = "end_to_end"
    """The host call as the caller sees it, transfers included."""
    KERNEL_ONLY = "kernel_only"
    """Device work only, data already resident."""


class Role(StrEnum):
    IN = "in"
    OUT = "out"
    INOUT = "inout"


class ParamKind(StrEnum):
    POINTER = "pointer"
    """A raw pointer ``T*`` / ``const T*`` to ``length`` elements."""
    VECTOR = "vector"
    """A ``std::vector<T>``: ``const&`` input, ``&`` output the function may resize."""
    SCALAR = "scalar"
    """A by-value number whose value is the expression ``value``."""


@dataclass(frozen=True, slots=True)
class Distribution:
    """How input elements are drawn. ``kind`` names a generator; parameters are optional.

    Kinds: ``uniform`` (lo, hi), ``normal`` (mean, std), ``int`` (lo, hi inclusive),
    ``sorted`` (uniform then sorted), ``permutation`` (of 0..length-1), ``const`` (lo),
    and structured kinds (``csr``, ``graph``, ``image``) whose parameters name the
    companion arguments they are generated with.
    """

    kind: str = "uniform"
    lo: float = -1.0
    hi: float = 1.0
    mean: float = 0.0
    std: float = 1.0
    params: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ArgSpec:
    """One parameter of the entry function, in declaration order."""

    name: str
    kind: ParamKind
    ctype: str
    """Element type for pointers and vectors (``float``), the type itself for scalars."""
    role: Role = Role.IN
    length: str | None = None
    """Element count as an expression over the size variables (pointers and vectors)."""
    value: str | None = None
    """Value as an expression over the size variables (scalars)."""
    dist: Distribution = field(default_factory=Distribution)


@dataclass(frozen=True, slots=True)
class Tolerance:
    """Allowed difference per element: ``|got - want| <= atol + rtol * |want|``.

    Integer outputs are always compared exactly, whatever this says.
    """

    atol: float = 1e-5
    rtol: float = 1e-4


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    """The launch contract of a kernel→kernel task: grid and block as expressions."""

    kernel: str
    grid: tuple[str, ...]
    block: tuple[str, ...]
    shared_bytes: str = "0"


@dataclass(frozen=True, slots=True)
class Task:
    """A sequential reference and everything needed to check and time a replacement."""

    name: str
    source: str
    """The reference translation unit: includes, types, macros, helpers and the entry."""
    entry: str
    signature: str
    """The entry's declaration as written, e.g. ``void f(int n, const float* x, float* y)``."""
    args: tuple[ArgSpec, ...]
    correctness_sizes: tuple[SizeBinding, ...]
    timing_size: SizeBinding
    returns: str = "void"
    """Return type; a non-void return value is compared like an output."""
    mode: TaskMode = TaskMode.SEQUENTIAL_TO_CUDA
    tolerance: Tolerance = field(default_factory=Tolerance)
    timing_mode: TimingMode = TimingMode.END_TO_END
    launch: LaunchSpec | None = None

    def arg(self, name: str) -> ArgSpec:
        for spec in self.args:
            if spec.name == name:
                return spec
        raise KeyError(name)

    @property
    def outputs(self) -> tuple[ArgSpec, ...]:
        return tuple(a for a in self.args if a.role in (Role.OUT, Role.INOUT))
