"""What every optimization job needs, loaded once: the graph, the verifier, the model.

The CLI runs one job and the language server many; both build an ``Optimizer`` from one
settings value and call ``run``. The model loads on the first job (a GGUF load takes a
second or more, which a language server must not spend before ``initialized``), and is
shared by later jobs: calls on one model are serialised by its backend.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.contracts.proposal import ProposeFn, SearchProgress
from regrapht_core.contracts.task import Task
from regrapht_core.errors import ConfigError
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.paths import snapshot_path
from regrapht_core.graph.snapshot import BuildInfo, load_snapshot
from regrapht_core.model.protocol import CodeModel
from regrapht_core.model.resolve import ModelSource, default_cache_dir, load_model, resolve_source
from regrapht_core.model.settings import LlamaSettings, ModelSettings, ServerSettings
from regrapht_core.optimize.exploring import ExploringGraph
from regrapht_core.optimize.job import OptimizeOutcome, SearchFn, optimize_task
from regrapht_core.optimize.proposers import step_proposer
from regrapht_core.optimize.rewriter_proposer import RewriterProposer
from regrapht_core.rewrite.registry import default_registry
from regrapht_core.search import run_search
from regrapht_core.search.config import GraphView, SearchConfig
from regrapht_core.search.variants import VariantPrior
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Verifier

__all__ = ["NO_MODEL", "JobSettings", "Optimizer"]

NO_MODEL = "none (rewriters only)"
_SEARCH = SearchConfig()
_VERIFY = VerifyConfig()


@dataclass(frozen=True, slots=True)
class JobSettings:
    search: SearchConfig = field(default_factory=SearchConfig)
    model: ModelSettings | None = field(default_factory=ModelSettings)
    """``None``: no language model; only the deterministic rewriters propose (fast, exact,
    and the way to run where no model file can be installed)."""
    verify: VerifyConfig = field(default_factory=VerifyConfig)
    snapshot: Path | None = None
    """``None``: ``$REGRAPHT_SNAPSHOT``, else the user's learned copy, else the shipped one
    (``graph.paths.snapshot_path``)."""
    rewriters: bool = True
    """Let deterministic rewriters answer the steps they can (off: model-only ablation)."""
    explore: bool = False
    """Search beyond the graph's edges: after the first step, every technique a rewriter
    implements may follow (``optimize.exploring``). Mining's setting, so that what it
    finds can add edges; an editor's search walks the graph."""
    seed: int = 0

    def __post_init__(self) -> None:
        if self.model is None and not self.rewriters:
            raise ConfigError("no model and no rewriters: nothing could propose a candidate")

    @classmethod
    def from_options(
        cls,
        *,
        budget: int = _SEARCH.budget,
        depth_cap: int = _SEARCH.depth_cap,
        time_limit_s: float | None = None,
        model: str | None = None,
        server_model: str = "",
        allow_remote: bool = False,
        gpu_layers: int | None = None,
        use_model: bool = True,
        nvcc: Path | None = None,
        gpu_index: int | None = None,
        compile_timeout_s: float = _VERIFY.compile_timeout_s,
        run_timeout_s: float = _VERIFY.run_timeout_s,
        snapshot: Path | None = None,
        rewriters: bool = True,
        seed: int = 0,
    ) -> JobSettings:
        """The settings of a job from the plain values a user sets, the same way for the
        command line, the benchmark and the editor. ``nvcc`` is the compiler or the folder
        holding it; ``model`` a GGUF path, embedded model name or server URL."""
        return cls(
            search=SearchConfig(budget=budget, depth_cap=depth_cap, time_limit_s=time_limit_s),
            model=ModelSettings(
                model=model or None,
                llama=LlamaSettings(n_gpu_layers=gpu_layers, main_gpu=gpu_index or 0),
                server=ServerSettings(model=server_model, allow_remote=allow_remote),
            )
            if use_model
            else None,
            verify=VerifyConfig(
                compile_timeout_s=compile_timeout_s,
                run_timeout_s=run_timeout_s,
                nvcc_path=None if nvcc is None else (nvcc / "nvcc" if nvcc.is_dir() else nvcc),
                gpu_index=gpu_index,
            ),
            snapshot=snapshot,
            rewriters=rewriters,
            seed=seed,
        )


class Optimizer:
    """Loads the snapshot and detects the GPU on construction; errors surface there."""

    def __init__(
        self,
        settings: JobSettings,
        *,
        env: Mapping[str, str] = os.environ,
        verifier: Verifier | None = None,
        model_loader: Callable[[ModelSource, ModelSettings], CodeModel] | None = None,
    ) -> None:
        self.settings = settings
        snapshot = load_snapshot(snapshot_path(settings.snapshot))
        self.graph: ReGraph = snapshot.graph
        self.graph_build: BuildInfo = snapshot.build
        """How the graph was built: a benchmark records it, so two graphs' runs never mix."""
        self.actions: GraphView = (
            ExploringGraph(self.graph, default_registry()) if settings.explore else self.graph
        )
        """What the search may do: the graph's edges, or more when exploring."""
        search = settings.search
        self.variants = VariantPrior(
            self.actions, neighbours=search.prior_neighbours, enabled=search.prior_weight > 0
        )
        """Which variant of a rewriter's step the graph's examples predict best."""
        self.verifier = verifier or Verifier(settings.verify)
        self.model_source = None if settings.model is None else resolve_source(settings.model, env)
        cache = default_cache_dir(env)
        # A model on the GPU answers in turns with the verifier's runs; answers of several
        # jobs on one GPU (editor windows, benchmark processes) may overlap one another.
        turn = self.verifier.gpu_lock.shared_turn
        self._load = model_loader or (
            lambda source, model: load_model(source, model, cache_dir=cache, gpu_turn=turn)
        )
        self._model: CodeModel | None = None
        self._model_lock = threading.Lock()

    @property
    def gpu(self) -> bool:
        return self.verifier.device is not None

    @property
    def model_named(self) -> str | None:
        """The model jobs ask, as resolved (``None``: rewriters only), for records and
        resumed runs to name: the unset ``--model`` reads the same for the embedded default,
        for ``$REGRAPHT_MODEL``'s and for no model at all."""
        return self.model_source.location if self.model_source else None

    @property
    def loaded_model(self) -> CodeModel | None:
        """The model if a job has loaded it; never loads it (nor raises)."""
        return self._model

    def model(self) -> CodeModel | None:
        """The model, loaded on first use; a ``ModelError`` names the file or URL to fix."""
        if self.model_source is None or self.settings.model is None:
            return None
        with self._model_lock:
            if self._model is None:
                self._model = self._load(self.model_source, self.settings.model)
            return self._model

    def _step_proposer(self, model: CodeModel | None) -> ProposeFn:
        if model is None:
            return RewriterProposer(variants=self.variants)
        settings = self.settings
        return step_proposer(
            model,
            self.graph,
            self.actions,
            seed=settings.seed,
            rewriters=settings.rewriters,
            variants=self.variants,
        )

    def run(
        self,
        task: Task,
        *,
        progress_fn: Callable[[SearchProgress], None] | None = None,
        cancel: threading.Event | None = None,
        search_fn: SearchFn = run_search,
        propose_fn: ProposeFn | None = None,
    ) -> OptimizeOutcome:
        """One job; ``search_fn`` and ``propose_fn`` replace MCGS and the step proposer
        for the benchmark's baselines. The job's time limit counts from here, loading the
        model included."""
        settings = self.settings
        deadline = Deadline.after(settings.search.time_limit_s)
        model = self.model()
        return optimize_task(
            task,
            self.actions,
            propose_fn=propose_fn or self._step_proposer(model),
            verifier=self.verifier,
            config=settings.search,
            model=NO_MODEL if model is None else model.name,
            seed=settings.seed,
            progress_fn=progress_fn,
            cancel=cancel,
            search_fn=search_fn,
            deadline=deadline,
        )
