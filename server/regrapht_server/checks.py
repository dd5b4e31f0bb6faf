"""What the editor's "Check the model and GPU" and "Show the ReGraph" commands show.

Thin wrappers over the core's own checks (``regrapht model check``, the verifier's device
detection, the snapshot loader), with the server's current settings applied, so the answer
describes exactly what the next job would use. Each part fails on its own: a missing model
still reports the GPU.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from regrapht_core.errors import ReGraphTError
from regrapht_server.settings import Settings, environment, job_settings

__all__ = ["CHECK_PROMPT", "check_setup", "graph_summary", "render_check"]

CHECK_PROMPT = "Write a CUDA kernel that adds two float arrays element-wise."


def _query(env: Mapping[str, str], gpu_index: int | None) -> Any:
    """The verifier's query, with the settings' ``PATH`` and GPU, without touching ours."""

    def query(argv: Sequence[str]) -> str | None:
        found = shutil.which(argv[0], path=env.get("PATH"))
        if found is None:
            return None
        args = [found, *argv[1:]]
        if gpu_index is not None and argv[0] == "nvidia-smi":
            args.insert(1, f"--id={gpu_index}")
        try:
            done = subprocess.run(args, capture_output=True, text=True, check=False, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    return query


def _gpu(settings: Settings, base: Mapping[str, str]) -> dict[str, Any]:
    from regrapht_core.verify.device import detect_device, nvcc_version

    env = environment(settings, base)
    query = _query(env, settings.gpu_index)
    device = detect_device(query)
    nvcc = shutil.which("nvcc", path=env.get("PATH"))
    return {
        "ok": device is not None,
        "device": device.name if device else None,
        "driver": device.driver if device else None,
        "arch": device.arch if device else None,
        "nvcc": nvcc_version(query),
        "nvccPath": nvcc,
    }


def _model(settings: Settings, base: Mapping[str, str], *, answer: bool) -> dict[str, Any]:
    from regrapht_core.model.embedded import EMBEDDED, embedded_path
    from regrapht_core.model.protocol import ChatMessage
    from regrapht_core.model.resolve import (
        SourceKind,
        default_cache_dir,
        load_model,
        resolve_source,
    )

    model_settings = job_settings(settings).model
    report: dict[str, Any] = {"ok": False, "used": model_settings is not None}
    if model_settings is None:  # useModel off: still say which model it would be
        from regrapht_core.model.settings import ModelSettings

        model_settings = ModelSettings(model=settings.model or None)
    try:
        source = resolve_source(model_settings, base)
        report.update(source=str(source.kind), origin=str(source.origin))
        cache_dir = default_cache_dir(base)
        location = source.location
        if source.kind is SourceKind.EMBEDDED:
            location = f"{location}: {embedded_path(EMBEDDED[location], cache_dir=cache_dir)}"
        report["location"] = location
        if not answer:
            report["ok"] = True
            return report
        started = time.monotonic()
        llm = load_model(source, model_settings, cache_dir=cache_dir)
        report.update(name=llm.name, loadSeconds=round(time.monotonic() - started, 2))
        done = llm.generate([ChatMessage("user", CHECK_PROMPT)], max_tokens=32, seed=0)
        report.update(
            ok=True,
            prompt=CHECK_PROMPT,
            answer=done.text,
            tokens=done.tokens,
            seconds=round(done.total_s, 2),
        )
    except ReGraphTError as err:
        report["error"] = str(err)
    return report


def _snapshot(settings: Settings) -> dict[str, Any]:
    from regrapht_core.graph.paths import snapshot_path
    from regrapht_core.graph.snapshot import load_snapshot

    path = snapshot_path(job_settings(settings).snapshot)
    try:
        graph = load_snapshot(path).graph
    except ReGraphTError as err:
        return {"ok": False, "path": str(path), "error": str(err)}
    edges = graph.edges
    examples = sum(len(graph.examples(u, v)) for u, v in edges)
    return {
        "ok": True,
        "path": str(path),
        "nodes": len(graph.nodes),
        "edges": len(edges),
        "examples": examples,
    }


def check_setup(
    settings: Settings, base: Mapping[str, str] | None = None, *, answer: bool = True
) -> dict[str, Any]:
    """The model (timed short answer when ``answer``), the GPU and nvcc, the snapshot."""
    env = dict(os.environ if base is None else base)
    result: dict[str, Any] = {
        "model": _model(settings, env, answer=answer),
        "gpu": _gpu(settings, env),
        "snapshot": _snapshot(settings),
    }
    result["text"] = render_check(result)
    return result


def render_check(result: Mapping[str, Any]) -> str:
    """Markdown for people; the extension shows it as it is."""
    model, gpu, snap = result["model"], result["gpu"], result["snapshot"]
    lines = ["# ReGraphT check", "", "## Model", ""]
    if not model.get("used"):
        lines.append("- not used: `regrapht.useModel` is off (rewriters only)")
    if "source" in model:
        lines.append(f"- source: {model['source']} ({model['origin']})")
        lines.append(f"- location: `{model['location']}`")
    if "name" in model:
        lines.append(f"- model: {model['name']}, loaded in {model['loadSeconds']} s")
    if "answer" in model:
        lines.append(f"- answer ({model['tokens']} tokens in {model['seconds']} s):")
        lines += ["", "```", model["answer"].strip(), "```"]
    if "error" in model:
        lines.append(f"- **problem:** {model['error']} (setting `regrapht.model`)")
    lines += ["", "## GPU", ""]
    if gpu["ok"]:
        lines.append(f"- device: {gpu['device']} ({gpu['arch']}, driver {gpu['driver']})")
    else:
        lines.append(
            "- **no GPU found** (no `nvidia-smi` answer): candidates are compiled, not run "
            "or timed; set `regrapht.allowUnverified` to see compiled-only results"
        )
    if gpu["nvccPath"]:
        lines.append(f"- nvcc: {gpu['nvcc']} at `{gpu['nvccPath']}`")
    else:
        lines.append("- **no nvcc found**: install the CUDA toolkit or set `regrapht.nvccPath`")
    lines += ["", "## ReGraph snapshot", ""]
    if snap["ok"]:
        lines.append(
            f"- `{snap['path']}`: {snap['nodes']} techniques, {snap['edges']} transitions, "
            f"{snap['examples']} examples"
        )
    else:
        lines.append(f"- **problem:** {snap['error']} (setting `regrapht.snapshotPath`)")
    return "\n".join(lines) + "\n"


def graph_summary(settings: Settings) -> dict[str, Any]:
    """The snapshot's shape for a picture: techniques, transitions with example counts."""
    from regrapht_core.graph.paths import snapshot_path
    from regrapht_core.graph.snapshot import load_snapshot
    from regrapht_core.graph.taxonomy import display_name, technique

    path: Path = snapshot_path(job_settings(settings).snapshot)
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
