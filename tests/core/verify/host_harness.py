"""The host-only harness (g++, no GPU) linked with a candidate, staged with cases: how the
harness tests drive the real harness protocol on a machine without a GPU."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from regrapht_core.contracts.task import SizeBinding, Task
from regrapht_core.tasks.inputs import generate_inputs
from regrapht_core.verify.cases import build_case, stage_case, window_bytes
from regrapht_core.verify.compile import Compiler
from regrapht_core.verify.driver import Harness
from regrapht_core.verify.harness import HarnessKind, entry_unit, harness_source
from regrapht_core.verify.sandbox import Limits, RunOutcome, Session, prepare_private_dir

__all__ = ["HostRun"]


class HostRun:
    """The harness with ``source`` as its candidate (a member entry gets its wrapper), in
    the private directory ``root``, with one staged case per size (``case0``, ...)."""

    def __init__(
        self,
        compiler: Compiler,
        task: Task,
        source: str,
        root: Path,
        *,
        sizes: Sequence[SizeBinding] | None = None,
        seed: int = 7,
    ) -> None:
        root.mkdir()
        standard = task.standard
        harness = compiler.host_object(
            harness_source(task, HarnessKind.REFERENCE), standard=standard
        )
        unit = compiler.host_object(entry_unit(task, source), standard=standard)
        assert harness.path is not None, harness.log
        assert unit.path is not None, unit.log
        linked = compiler.link([harness.path, unit.path], root / "bin", cuda=False)
        assert linked.ok, linked.log
        self.sizes = [dict(b) for b in (task.correctness_sizes if sizes is None else sizes)]
        self.cases = [build_case(task, size, seed, generate_inputs) for size in self.sizes]
        for k, case in enumerate(self.cases):
            stage_case(root, f"case{k}", case.arrays)
        prepare_private_dir(root)
        self.session = Session(
            ["./bin", "serve"],
            root,
            Limits(wall_s=60.0),
            {},
            window_bytes=window_bytes(task, self.cases),
        )
        self.harness = Harness(self.session, task)

    def close(self) -> RunOutcome:
        return self.session.close()
