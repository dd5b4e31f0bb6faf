"""``regrapht model``: see which model the tool would use, and that it answers."""

from __future__ import annotations

import json
import os
from typing import Any

import click

from regrapht_core.errors import ModelError
from regrapht_core.model.check import CHECK_PROMPT, ModelPlace, ModelTrial, locate_model, try_model
from regrapht_core.model.protocol import Sampling
from regrapht_core.model.settings import LlamaSettings, ModelSettings, ServerSettings

__all__ = ["model"]


@click.group()
def model() -> None:
    """Local language model: which one is used and whether it works."""


@model.command()
@click.option(
    "--model",
    "spec",
    help="GGUF path, embedded model name or http(s):// URL of a local OpenAI-compatible "
    "server. Default: $REGRAPHT_MODEL, then the embedded model.",
)
@click.option("--server-model", default="", help="Model name on the server (default: first).")
@click.option("--allow-remote", is_flag=True, help="Accept a server that is not on loopback.")
@click.option(
    "--n-ctx",
    type=click.IntRange(min=256),
    default=None,
    help="Context tokens. Default: the model's own, at most 8192.",
)
@click.option("--threads", type=click.IntRange(min=1), default=None, help="Default: llama.cpp's.")
@click.option(
    "--gpu-layers",
    type=int,
    default=None,
    help="Layers on the GPU (-1 as many as fit, 0 none). Default: as many as fit when the "
    "installed llama.cpp build sees a GPU.",
)
@click.option("--prompt", default=CHECK_PROMPT, show_default=True)
@click.option("--max-tokens", type=click.IntRange(min=1), default=48, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the model's source, answer and timings as one JSON object.",
)
def check(
    *,
    spec: str | None,
    server_model: str,
    allow_remote: bool,
    n_ctx: int | None,
    threads: int | None,
    gpu_layers: int | None,
    prompt: str,
    max_tokens: int,
    seed: int,
    as_json: bool,
) -> None:
    """Print which model is used and where it comes from, then time a short answer."""
    settings = ModelSettings(
        model=spec,
        llama=LlamaSettings(n_ctx=n_ctx, n_threads=threads, n_gpu_layers=gpu_layers),
        server=ServerSettings(model=server_model, allow_remote=allow_remote),
    )

    def echo(text: str, nl: bool = True) -> None:
        if not as_json:  # the JSON document alone goes to stdout
            click.echo(text, nl=nl)

    try:
        place = locate_model(settings, os.environ)
        echo(f"source:   {place.source.kind} ({place.source.origin})")
        echo(f"location: {place.location}")
        echo(f"prompt:   {prompt}")
        echo("answer:   ", nl=False)
        trial = try_model(
            place,
            settings,
            os.environ,
            prompt=prompt,
            sampling=Sampling(max_tokens, seed=seed),
            on_token=lambda piece: echo(piece, nl=False),
        )
    except ModelError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(_check_json(place, trial), indent=2))
        return
    click.echo()
    context = f"context {trial.context_tokens} tokens"
    click.echo(f"model:    {trial.name} ({context}, on {trial.runs_on})")
    click.echo(f"loaded in {trial.load_s:.2f} s")
    done = trial.completion
    first = "n/a" if done.first_token_s is None else f"{done.first_token_s:.2f} s"
    speed = "n/a" if done.tokens_per_s is None else f"{done.tokens_per_s:.1f} tokens/s"
    click.echo(
        f"timing:   first token {first}, {done.tokens} tokens in {done.total_s:.2f} s, "
        f"{speed}, finished: {done.finish_reason}"
    )


def _check_json(place: ModelPlace, trial: ModelTrial) -> dict[str, Any]:
    done = trial.completion
    return {
        "source": str(place.source.kind),
        "origin": str(place.source.origin),
        "location": place.location,
        "model": trial.name,
        "contextTokens": trial.context_tokens,
        "runsOn": trial.runs_on,
        "prompt": trial.prompt,
        "answer": done.text,
        "finishReason": str(done.finish_reason),
        "tokens": done.tokens,
        "loadSeconds": trial.load_s,
        "firstTokenSeconds": done.first_token_s,
        "totalSeconds": done.total_s,
        "tokensPerSecond": done.tokens_per_s,
    }
