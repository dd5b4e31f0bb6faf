"""Check the setup a job would use, and summarise its graph: for editors and tools.

``check_setup`` looks at the model (and times a short answer), the GPU and nvcc as the
verifier would find them, and the snapshot, each part failing on its own (a missing model
still reports the GPU). The result is a value with its JSON form (the keys the editor
reads) and its Markdown form side by side; ``graph_summary`` is the snapshot's shape for
a picture. The language server's commands are one call to each.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from regrapht_core.contracts.evaluation import DeviceInfo
from regrapht_core.errors import ReGraphTError
from regrapht_core.graph.paths import snapshot_path
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.graph.taxonomy import display_name, technique
from regrapht_core.model.check import ModelPlace, ModelTrial, locate_model, try_model
from regrapht_core.model.settings import ModelSettings
from regrapht_core.optimize.session import JobSettings
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.device import detect_device, nvcc_version, run_tool, tool_query

__all__ = [
    "GpuCheck",
    "ModelCheck",
    "SetupCheck",
    "SnapshotCheck",
    "check_setup",
    "graph_summary",
]


@dataclass(frozen=True, slots=True)
class ModelCheck:
    used: bool
    """``False``: the job proposes with rewriters only; the model is still described."""
    place: ModelPlace | None = None
    trial: ModelTrial | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def as_json(self) -> dict[str, Any]:
        report: dict[str, Any] = {"ok": self.ok, "used": self.used}
        if self.place is not None:
            source = self.place.source
            report.update(
                source=str(source.kind), origin=str(source.origin), location=self.place.location
            )
        if self.trial is not None:
            done = self.trial.completion
            report.update(
                name=self.trial.name,
                runsOn=self.trial.runs_on,
                loadSeconds=round(self.trial.load_s, 2),
                prompt=self.trial.prompt,
                answer=done.text,
                tokens=done.tokens,
                seconds=round(done.total_s, 2),
            )
        if self.error is not None:
            report["error"] = self.error
        return report

    def markdown(self) -> list[str]:
        lines = [] if self.used else ["- not used: `regrapht.useModel` is off (rewriters only)"]
        if self.place is not None:
            lines.append(f"- source: {self.place.source.kind} ({self.place.source.origin})")
            lines.append(f"- location: `{self.place.location}`")
        if self.trial is not None:
            trial = self.trial
            done = trial.completion
            loaded = f"loaded in {trial.load_s:.2f} s"
            lines.append(f"- model: {trial.name} on {trial.runs_on}, {loaded}")
            lines.append(f"- answer ({done.tokens} tokens in {done.total_s:.2f} s):")
            lines += ["", "```", done.text.strip(), "```"]
        if self.error is not None:
            lines.append(f"- **problem:** {self.error} (setting `regrapht.model`)")
        return lines


@dataclass(frozen=True, slots=True)
class GpuCheck:
    device: DeviceInfo | None
    nvcc: str | None
    """nvcc's version, ``None`` without one."""
    nvcc_path: str | None

    def as_json(self) -> dict[str, Any]:
        device = self.device
        return {
            "ok": device is not None,
            "device": device.name if device else None,
            "driver": device.driver if device else None,
            "arch": device.arch if device else None,
            "nvcc": self.nvcc,
            "nvccPath": self.nvcc_path,
        }

    def markdown(self) -> list[str]:
        device = self.device
        if device is not None:
            lines = [f"- device: {device.name} ({device.arch}, driver {device.driver})"]
        else:
            lines = [
                "- **no GPU found** (no `nvidia-smi` answer): candidates are compiled, not run "
                "or timed; set `regrapht.allowUnverified` to see compiled-only results"
            ]
        if self.nvcc_path:
            lines.append(f"- nvcc: {self.nvcc} at `{self.nvcc_path}`")
        else:
            lines.append("- **no nvcc found**: install the CUDA toolkit or set `regrapht.nvccPath`")
        return lines


@dataclass(frozen=True, slots=True)
class SnapshotCheck:
    path: Path
    nodes: int = 0
    edges: int = 0
    examples: int = 0
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        if self.error is not None:
            return {"ok": False, "path": str(self.path), "error": self.error}
        counts = {"nodes": self.nodes, "edges": self.edges, "examples": self.examples}
        return {"ok": True, "path": str(self.path), **counts}

    def markdown(self) -> list[str]:
        if self.error is not None:
            return [f"- **problem:** {self.error} (setting `regrapht.snapshotPath`)"]
        return [
            f"- `{self.path}`: {self.nodes} techniques, {self.edges} transitions, "
            f"{self.examples} examples"
        ]


@dataclass(frozen=True, slots=True)
class SetupCheck:
    model: ModelCheck
    gpu: GpuCheck
    snapshot: SnapshotCheck

    def markdown(self) -> str:
        """For people; the editor shows it as it is."""
        lines = ["# ReGraphT check", "", "## Model", "", *self.model.markdown()]
        lines += ["", "## GPU", "", *self.gpu.markdown()]
        lines += ["", "## ReGraph snapshot", "", *self.snapshot.markdown()]
        return "\n".join(lines) + "\n"

    def as_json(self) -> dict[str, Any]:
        """The parts as the editor reads them, and the Markdown as ``text``."""
        return {
            "model": self.model.as_json(),
            "gpu": self.gpu.as_json(),
            "snapshot": self.snapshot.as_json(),
            "text": self.markdown(),
        }


def check_setup(
    job: JobSettings,
    *,
    answer: bool = True,
    model_used: bool = True,
    env: Mapping[str, str] = os.environ,
) -> SetupCheck:
    """The model (a timed short answer when ``answer``), the GPU and nvcc, the snapshot.

    ``model_used=False`` says the job would propose with rewriters only while still
    describing the model ``job`` names; ``env`` is where ``$REGRAPHT_MODEL``, the cache and
    the tools' ``PATH`` are read (never written).
    """
    return SetupCheck(
        model=_model(job.model or ModelSettings(), env, used=model_used, answer=answer),
        gpu=_gpu(job.verify, env),
        snapshot=_snapshot(snapshot_path(job.snapshot)),
    )


def _model(
    settings: ModelSettings, env: Mapping[str, str], *, used: bool, answer: bool
) -> ModelCheck:
    place = None
    try:
        place = locate_model(settings, env)
        trial = try_model(place, settings, env) if answer else None
    except ReGraphTError as err:
        return ModelCheck(used, place, error=str(err))
    return ModelCheck(used, place, trial)


def _gpu(config: VerifyConfig, env: Mapping[str, str]) -> GpuCheck:
    """As the verifier would find them: its nvcc and GPU, tools on its tools' ``PATH``."""
    path = config.tool_environment(env).get("PATH")
    query = tool_query(config.nvcc, config.gpu_index, partial(run_tool, path=path))
    found = config.find_nvcc(env)
    return GpuCheck(
        detect_device(query), nvcc_version(query), None if found is None else str(found)
    )


def _snapshot(path: Path) -> SnapshotCheck:
    try:
        graph = load_snapshot(path).graph
    except ReGraphTError as err:
        return SnapshotCheck(path, error=str(err))
    edges = graph.edges
    examples = sum(len(graph.examples(u, v)) for u, v in edges)
    return SnapshotCheck(path, len(graph.nodes), len(edges), examples)


def graph_summary(snapshot: Path | None) -> dict[str, Any]:
    """The snapshot's techniques and transitions with example counts and best speedups;
    a ``GraphError`` names the snapshot when it cannot be used."""
    path = snapshot_path(snapshot)
    graph = load_snapshot(path).graph
    edges = []
    for u, v in graph.edges:
        examples = graph.examples(u, v)
        speedups = [e.speedup for e in examples if e.speedup is not None]
        edges.append(
            {
                "from": u,
                "to": v,
                "examples": len(examples),
                "bestSpeedup": max(speedups) if speedups else None,
            }
        )
    nodes = [
        {
            "id": node,
            "name": display_name(node),
            "description": known.description if (known := technique(node)) else None,
        }
        for node in graph.nodes
    ]
    return {"path": str(path), "nodes": nodes, "edges": edges}
