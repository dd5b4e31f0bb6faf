"""The verifier: gate → compile → object check → link → one isolated run → plausibility.

Stages run cheapest first and the first failure ends the run with trimmed feedback for the
proposer. The work splits in two so a pool can overlap them: :meth:`Verifier.build` (gate,
compile, object check, link, and the reference's answers for this candidate's fresh small
cases; CPU only, safe to run in parallel) and :meth:`Verifier.run` (the GPU, one candidate
at a time per device). A host-function candidate (seq2cuda) runs in one harness process
for its checks and its timing (:mod:`regrapht_core.verify.checks`), against per-task data
the session computes once (:mod:`regrapht_core.verify.bank`); a ``__global__`` candidate
(kernel2kernel) runs in the Python kernel runner against the original kernel, in separate
check and timing processes. The sanitizer runs on a final answer, not on every candidate
(:meth:`Verifier.sanitize`). Without a GPU, a candidate that builds ends ``NOT_RUN``:
compiled, never called verified, no timing, no reward.

Every timeout (compile, run, sanitizer, timing, canary) is cut to what is left before the
job's deadline; a candidate the deadline stops ends ``TIMEOUT``, like one that hangs.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.contracts.evaluation import DeviceInfo, Evaluation, Status, Timing
from regrapht_core.contracts.task import SizeBinding, SourceLanguage, Task, TaskMode, TimingMode
from regrapht_core.errors import TaskError
from regrapht_core.lifetime import scratch, scratch_dir
from regrapht_core.verify.bank import (
    BASE_FOLDER,
    TimingSet,
    build_timing_set,
    link_base,
    stage_base,
    time_reference,
)
from regrapht_core.verify.cases import (
    Array,
    Case,
    InputMaker,
    build_case,
    case_folder,
    read_hashes,
    read_outputs,
    returned_bytes,
    stage_case,
    window_bytes,
    write_cases,
)
from regrapht_core.verify.checks import Verdict, check_and_time
from regrapht_core.verify.compare import Expected, first_mismatch
from regrapht_core.verify.compile import CompileOutcome, Compiler
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.device import DEFAULT_ARCH, Query, detect_device, tool_query
from regrapht_core.verify.driver import (
    CallSample,
    Harness,
    HarnessStopped,
    responsive,
)
from regrapht_core.verify.exact import exact_sums_source
from regrapht_core.verify.gpu_lock import GpuLock, gpu_key
from regrapht_core.verify.harness import (
    LINK_WRAPS,
    HarnessKind,
    entry_symbol,
    entry_unit,
    harness_source,
)
from regrapht_core.verify.kernel_build import KernelBuildError, kernel_programs
from regrapht_core.verify.launch import write_plan
from regrapht_core.verify.objects import CANDIDATE_DEFINES, ObjectTools, inspect_object
from regrapht_core.verify.plausibility import (
    bytes_moved,
    copy_floor_ms,
    roofline_ms,
    second_look,
    under_roofline,
)
from regrapht_core.verify.probe import DeviceLimits, run_probe
from regrapht_core.verify.programs import (
    Program,
    gpu_python_missing,
    native_program,
    python_probe,
)
from regrapht_core.verify.protocol import (
    EXIT_CUDA_ERROR,
    EXIT_MANAGED_MEMORY,
    EXIT_OUT_OF_BOUNDS,
)
from regrapht_core.verify.sandbox import (
    Limits,
    Runner,
    RunOutcome,
    Session,
    allow_traversal,
    network_isolation_available,
    prepare_private_dir,
    run_isolated,
)
from regrapht_core.verify.timing import (
    Adaptive,
    clock_disagreement,
    cpu_elsewhere,
    no_gpu_work,
    parse_kernel_samples,
    summarize,
)

__all__ = ["Built", "GateCheck", "Sanitized", "Verifier", "verify"]

log = logging.getLogger(__name__)

GateCheck = Callable[[str, Task], str | None]
"""The static gate: ``None`` to accept, or the reason the source is rejected."""

_FEEDBACK_CHARS = 1500
_SANITIZER_EXIT = 86
_HOST_MODES = (TimingMode.END_TO_END, TimingMode.KERNEL_ONLY)
_KERNEL_MODULE = "reference module"
_EXACT_UNIT = "task source, float sums in double"
_LATE = "the job's time limit passed"


@dataclass(frozen=True, slots=True)
class Built:
    """A candidate that passed the gate and compiled: its programs, awaiting the GPU."""

    task: Task
    code_hash: str
    work: Path
    check: Program
    """Host mode: the one candidate process (checks and timing); kernel mode: the checks."""
    timing: Program
    reference: Program
    cases: tuple[Case, ...] = ()
    """Host mode: the small cases, fresh seeds, and the reference's answers for them."""
    expected: tuple[Expected, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Sanitized:
    """What compute-sanitizer said about a final answer."""

    clean: bool
    note: str
    late: bool = False
    """The time limit passed before the sanitizer finished: no finding, and no
    confirmation either."""


@dataclass(frozen=True, slots=True)
class _TaskBuild:
    """What a task needs once per session: compiled units and, for host mode, the
    reference program and its timing-size data."""

    objects: dict[str, Path]
    reference: Program | None = None
    timing: TimingSet | None = None
    exact: Program | None = None
    """The reference with its whole-function float sums in double, where it has any
    (:mod:`regrapht_core.verify.exact`): a second answer outputs may match."""


def _trim(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _FEEDBACK_CHARS else text[:_FEEDBACK_CHARS] + " ..."


def _not_built(outcome: CompileOutcome, code_hash: str) -> Evaluation:
    status = Status.TIMEOUT if outcome.timed_out else Status.COMPILE_ERROR
    return Evaluation(status, code_hash, _trim(outcome.log))


def _reference_stopped(task: Task, session: Session, deadline: Deadline, where: str) -> None:
    """After the reference stopped answering: nothing when the job's deadline cut it short
    (the caller reports the timeout), else the task's fault, raised as ``TaskError``."""
    outcome = session.close()
    if outcome.timed_out and deadline.expired:
        return
    raise TaskError(
        f"task {task.name}: the reference itself failed {where} ({outcome.describe()}): "
        f"{outcome.stderr.strip()[:500]}"
    ) from None


def _task_key(task: Task) -> str:
    return hashlib.sha256(repr(task).encode()).hexdigest()


def _default_inputs(task: Task, binding: SizeBinding, seed: int) -> dict[str, object]:
    from regrapht_core.tasks.inputs import generate_inputs

    return dict(generate_inputs(task, binding, seed))


def _default_gate(source: str, task: Task) -> str | None:
    from regrapht_core.verify.gate import check

    verdict = check(source, task)
    return None if verdict.ok else verdict.feedback


class Verifier:
    """One verification session: the detected device, the compiler and its cache.

    Thread-safe: builds may run concurrently; GPU runs are serialized by a lock, so timings
    never overlap and a crash is followed by the canary before the next candidate runs.
    """

    def __init__(
        self,
        config: VerifyConfig,
        *,
        runner: Runner = run_isolated,
        query: Query | None = None,
        make_inputs: InputMaker = _default_inputs,
        gate: GateCheck = _default_gate,
        device: DeviceInfo | bool | None = True,
    ) -> None:
        """``device=True`` detects the GPU (asking the configured nvcc and GPU unless a
        ``query`` is given); ``None`` forces the no-GPU path (or pass one)."""
        self.config = config
        query = query or tool_query(config.nvcc, config.gpu_index)
        self.device = detect_device(query) if device is True else device or None
        arch = config.arch or (self.device.arch if self.device else DEFAULT_ARCH)
        self.compiler = Compiler(
            config.cache_dir,
            arch,
            timeout_s=config.compile_timeout_s,
            runner=runner,
            nvcc=config.nvcc,
            environment=config.tool_environment(),
        )
        self._run_base = config.run_environment()
        self._runner = runner
        self._make_inputs = make_inputs
        self._gate = gate
        self.gpu_lock = GpuLock(gpu_key(self._run_base))
        self._limits_found: DeviceLimits | None = None
        self._suspect = True
        self._python_drops: bool | None = None
        self._object_tools = ObjectTools(cuda_home=config.cuda_home)
        self._tasks: dict[str, _TaskBuild] = {}
        self._objects_lock = threading.Lock()
        self._adaptive = Adaptive(
            least=config.min_timed_runs,
            most=config.timed_runs,
            tolerance=config.timing_tolerance,
        )
        self._task_locks: dict[str, threading.Lock] = {}

    # ---------------------------------------------------------------- build (CPU)

    def build(
        self, task: Task, source: str, *, deadline: Deadline = NO_DEADLINE
    ) -> Built | Evaluation:
        code_hash = hashlib.sha256(source.encode()).hexdigest()[:16]
        if deadline.expired:
            return Evaluation(Status.TIMEOUT, code_hash, f"{_LATE} before this candidate was built")
        rejected = self._gate(source, task)
        if rejected is not None:
            return Evaluation(Status.GATE_REJECTED, code_hash, _trim(rejected))
        if task.mode is TaskMode.KERNEL_TO_KERNEL:
            return self._build_kernel(task, source, code_hash, deadline)
        candidate = self.compiler.cuda_object(
            entry_unit(task, source),
            defines=CANDIDATE_DEFINES,
            standard=task.standard,
            deadline=deadline,
        )
        if not candidate.ok or candidate.path is None:
            return _not_built(candidate, code_hash)
        refused = inspect_object(candidate.path, entry=entry_symbol(task), tools=self._object_tools)
        if refused is not None:
            return Evaluation(Status.GATE_REJECTED, code_hash, _trim(refused))
        prepared = self._task_build(task, deadline)
        if prepared is None:
            return Evaluation(Status.TIMEOUT, code_hash, f"{_LATE} while the harness compiled")
        assert prepared.reference is not None
        work = scratch_dir("build-")
        linked = self.compiler.link(
            [prepared.objects[HarnessKind.CANDIDATE], candidate.path],
            work / "candidate",
            wraps=LINK_WRAPS,
            deadline=deadline,
        )
        if not linked.ok:
            shutil.rmtree(work, ignore_errors=True)
            return _not_built(linked, code_hash)
        cases = self._small_cases(task) if self.device is not None else ()
        expected = self._expected(task, prepared, cases, deadline)
        if expected is None:
            shutil.rmtree(work, ignore_errors=True)
            return Evaluation(Status.TIMEOUT, code_hash, f"{_LATE} while the reference ran")
        program = native_program(work / "candidate")
        return Built(
            task, code_hash, work, program, program, prepared.reference, cases, tuple(expected)
        )

    def _small_cases(self, task: Task) -> tuple[Case, ...]:
        """Every correctness size but the timing size, with every fresh secret seed.

        The timing size is checked by the timed calls themselves, on a dozen secret
        variants of its inputs (:mod:`regrapht_core.verify.checks`); three more full-size
        cases per candidate cost more than a second of loading, calls and comparisons on
        the GPU machine, and their reference answers a CPU reference run each.
        """
        seeds = [secrets.randbits(63) for _ in range(self.config.seeds)]
        return tuple(
            build_case(task, binding, seed, self._make_inputs)
            for seed in seeds
            for binding in task.correctness_sizes
            if binding != task.timing_size
        )

    def _expected(
        self, task: Task, prepared: _TaskBuild, cases: Sequence[Case], deadline: Deadline
    ) -> list[Expected] | None:
        """What each of ``cases`` must match: the reference's answers, and the exact-sum
        reference's where the task has one."""
        assert prepared.reference is not None
        written = self._answers(task, prepared.reference, cases, deadline)
        if written is None:
            return None
        if prepared.exact is None:
            return [Expected(w) for w in written]
        exact = self._answers(task, prepared.exact, cases, deadline)
        if exact is None:
            return None
        return [Expected(w, e) for w, e in zip(written, exact, strict=True)]

    def _answers(
        self, task: Task, reference: Program, cases: Sequence[Case], deadline: Deadline
    ) -> list[dict[str, Array]] | None:
        """The reference's outputs for ``cases``, from a reference process of their own."""
        if not cases:
            return []
        wall_s = deadline.cap(self.config.run_timeout_s)
        with scratch("reference-") as root:
            for k, case in enumerate(cases):
                stage_case(root, case_folder(k), case.arrays)
            session = self._open(reference, root, self._limits(wall_s, cases), task, cases)
            try:
                harness = Harness(session, task)
                answers = []
                for k in range(len(cases)):
                    harness.load(case_folder(k))
                    harness.call(flush=False)
                    answers.append(harness.dump().outputs)
                harness.quit()
            except HarnessStopped:
                _reference_stopped(task, session, deadline, "on the small cases")
                return None
            session.close()
            return answers

    def _open(
        self,
        program: Program,
        root: Path,
        limits: Limits,
        task: Task,
        cases: Sequence[Case],
        *,
        timing: TimingSet | None = None,
    ) -> Session:
        """Start ``program``'s harness for ``cases`` in its private ``root``, with
        ``timing``'s base inputs linked in when given (the caller closes it)."""
        env = self._stage(program, root)
        if timing is not None:
            link_base(timing, root)
            cases = [*cases, timing.case]
        window = window_bytes(task, cases)
        return Session([*program.argv, "serve"], root, limits, env, window_bytes=window)

    def _build_kernel(
        self, task: Task, source: str, code_hash: str, deadline: Deadline
    ) -> Built | Evaluation:
        """The candidate kernel as a module of its own, next to the original kernel's."""
        candidate = self.compiler.cuda_module(source, standard=task.standard, deadline=deadline)
        if not candidate.ok or candidate.path is None:
            return _not_built(candidate, code_hash)
        prepared = self._task_build(task, deadline)
        if prepared is None:
            return Evaluation(Status.TIMEOUT, code_hash, f"{_LATE} while the original compiled")
        reference = prepared.objects[_KERNEL_MODULE]
        work = scratch_dir("build-")
        try:
            check, timing, original = kernel_programs(task, candidate.path, reference, work)
        except KernelBuildError as error:
            shutil.rmtree(work, ignore_errors=True)
            return Evaluation(Status.COMPILE_ERROR, code_hash, _trim(str(error)))
        return Built(task, code_hash, work, check, timing, original)

    def _task_build(
        self, task: Task, deadline: Deadline, *, gpu_held: bool = False
    ) -> _TaskBuild | None:
        """Harness builds, the reference and its timing-size data, made once per task and
        session; ``None`` when the deadline stopped them (nothing is kept, a later job
        makes them again). ``gpu_held``: the caller holds the GPU lock, which the
        reference's timing would otherwise take (it is not reentrant).

        A lock per task keeps concurrent builds of one task's candidates from doing this
        side by side; the units themselves compile in parallel.
        """
        key = _task_key(task)
        with self._objects_lock:
            lock = self._task_locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._tasks:
                made = self._make_task(task, deadline, gpu_held=gpu_held)
                if made is None:
                    return None
                self._tasks[key] = made
            return self._tasks[key]

    def _make_task(self, task: Task, deadline: Deadline, *, gpu_held: bool) -> _TaskBuild | None:
        objects = self._compile_task(task, deadline)
        if objects is None or task.mode is TaskMode.KERNEL_TO_KERNEL:
            return None if objects is None else _TaskBuild(objects)
        folder = scratch_dir("task-")
        linked = self.compiler.link(
            [objects[HarnessKind.REFERENCE], objects["task source"]],
            folder / "reference",
            cuda=task.language is SourceLanguage.CUDA,
            deadline=deadline,
        )
        if linked.timed_out:
            return None
        if not linked.ok:
            raise TaskError(f"task {task.name}: the reference does not link: {linked.log}")
        reference = native_program(folder / "reference")
        exact = self._link_exact(task, objects, folder, deadline)
        if self.device is None:
            return _TaskBuild(objects, reference, exact=exact)
        case = build_case(task, task.timing_size, secrets.randbits(63), self._make_inputs)
        limits = self._limits(deadline.cap(self.config.timing_timeout_s), [case])
        data = folder / "data"
        stage_base(data, case)
        session = self._open(reference, data, limits, task, [case])
        exact_session = None
        if exact is not None:  # a folder of its own: two harnesses never share one
            stage_base(folder / "exact", case)
            exact_session = self._open(exact, folder / "exact", limits, task, [case])
        try:
            timing = build_timing_set(
                task,
                case,
                data,
                Harness(session, task),
                adaptive=self._adaptive,
                turn=nullcontext(True) if gpu_held else self.gpu_lock.hold(deadline),
                exact=Harness(exact_session, task) if exact_session is not None else None,
            )
        except HarnessStopped:
            _reference_stopped(task, session, deadline, "on the timing-size inputs")
            return None
        finally:
            if exact_session is not None:
                exact_session.close()
        session.close()
        return None if timing is None else _TaskBuild(objects, reference, timing, exact)

    def _link_exact(
        self, task: Task, objects: dict[str, Path], folder: Path, deadline: Deadline
    ) -> Program | None:
        """The exact-sum reference, when the task has one and it builds; one that does not
        (a ``double`` where a template wanted the ``float``) leaves the written answer
        alone, as before."""
        unit = objects.get(_EXACT_UNIT)
        if unit is None:
            return None
        linked = self.compiler.link(
            [objects[HarnessKind.REFERENCE], unit],
            folder / "reference-exact",
            cuda=task.language is SourceLanguage.CUDA,
            deadline=deadline,
        )
        if not linked.ok:
            log.info("%s: the exact-sum reference does not link: %s", task.name, linked.log)
            return None
        return native_program(folder / "reference-exact")

    def retime_reference(
        self, task: Task, *, deadline: Deadline = NO_DEADLINE
    ) -> tuple[float, ...] | None:
        """Time ``task``'s reference again, in its turn on the GPU, for what follows.

        The reference is timed once per session, and two sessions' times of one reference
        on the H200 differed by 0.70x to 1.65x (docs/models.md): what else the machine was
        doing moves a one-thread, memory-bound loop. A job's answer is measured a second
        time before it is reported (``optimize.job.retimed``); timing the reference just
        before it puts both measurements in the same minute. The new times, or ``None``
        (the earlier ones kept) for a kernel task, without a GPU, before the task was
        prepared, or when the deadline or the reference stopped the timing.
        """
        if self.device is None or task.mode is TaskMode.KERNEL_TO_KERNEL or deadline.expired:
            return None
        key = _task_key(task)
        with self._objects_lock:
            lock = self._task_locks.setdefault(key, threading.Lock())
        with lock:
            made = self._tasks.get(key)
            if made is None or made.timing is None or made.reference is None:
                return None
            timing = made.timing
            limits = self._limits(deadline.cap(self.config.timing_timeout_s), [timing.case])
            with scratch("reference-") as root:
                session = self._open(made.reference, root, limits, task, [], timing=timing)
                try:
                    harness = Harness(session, task)
                    harness.load(BASE_FOLDER)
                    turn = self.gpu_lock.hold(deadline)
                    times = time_reference(harness, adaptive=self._adaptive, turn=turn)
                    harness.quit()
                except HarnessStopped:
                    outcome = session.close()
                    log.warning("%s: the reference stopped: %s", task.name, outcome.describe())
                    return None
                session.close()
            if times is None:
                return None
            self._tasks[key] = replace(made, timing=replace(timing, reference_ms=times))
            return times

    def _compile_task(self, task: Task, deadline: Deadline) -> dict[str, Path] | None:
        compile_cuda, compile_host = self.compiler.cuda_object, self.compiler.host_object
        compile_task = compile_cuda if task.language is SourceLanguage.CUDA else compile_host
        if task.mode is TaskMode.KERNEL_TO_KERNEL:
            units = {_KERNEL_MODULE: (self.compiler.cuda_module, task.source)}
        else:
            units = {
                HarnessKind.CANDIDATE: (
                    compile_cuda,
                    harness_source(task, HarnessKind.CANDIDATE),
                ),
                HarnessKind.REFERENCE: (
                    compile_host,
                    harness_source(task, HarnessKind.REFERENCE),
                ),
                "task source": (compile_task, entry_unit(task, task.source)),
            }
            exact = exact_sums_source(task)
            if exact is not None:
                units[_EXACT_UNIT] = (compile_task, entry_unit(task, exact))
        with ThreadPoolExecutor(max_workers=len(units)) as pool:
            futures = {
                name: pool.submit(fn, source, standard=task.standard, deadline=deadline)
                for name, (fn, source) in units.items()
            }
        outcomes = {name: future.result() for name, future in futures.items()}
        if any(outcome.timed_out for outcome in outcomes.values()):
            return None
        paths: dict[str, Path] = {}
        for name, outcome in outcomes.items():
            if name == _EXACT_UNIT and not outcome.ok:
                log.info("%s: the exact-sum reference does not compile: %s", task.name, outcome.log)
                continue
            if not outcome.ok or outcome.path is None:
                raise TaskError(
                    f"task {task.name}: the {name} unit does not compile: {outcome.log}"
                )
            paths[name] = outcome.path
        return paths

    # ---------------------------------------------------------------- run (GPU)

    def run(self, built: Built, *, deadline: Deadline = NO_DEADLINE) -> Evaluation:
        try:
            if self.device is None:
                return self._not_run(built, "no GPU on this machine: compiled, not run")
            kernel = built.task.mode is TaskMode.KERNEL_TO_KERNEL
            missing = gpu_python_missing() if kernel else None
            if missing is not None:
                return self._not_run(built, f"{missing}: compiled, not run")
            with self.gpu_lock.hold(deadline) as held, responsive():
                if not held or deadline.expired:
                    return Evaluation(
                        Status.TIMEOUT, built.code_hash, f"{_LATE} before this candidate ran"
                    )
                return self._run_on_gpu(built, deadline)
        finally:
            shutil.rmtree(built.work, ignore_errors=True)

    def verify(self, task: Task, source: str, *, deadline: Deadline = NO_DEADLINE) -> Evaluation:
        built = self.build(task, source, deadline=deadline)
        return built if isinstance(built, Evaluation) else self.run(built, deadline=deadline)

    def _not_run(self, built: Built, why: str) -> Evaluation:
        return Evaluation(
            Status.NOT_RUN,
            built.code_hash,
            feedback=why,
            device=self.device,
            sizes=(*built.task.correctness_sizes, built.task.timing_size),
            flags=(why,),
        )

    def _limits(self, wall_s: float, cases: Sequence[Case], *, kernel: bool = False) -> Limits:
        """Bounds for one process that handles ``cases``."""
        biggest = max((a.nbytes for c in cases for a in c.arrays), default=0)
        return Limits(
            wall_s=wall_s,
            cpu_s=int(wall_s * 2) + 5,
            file_bytes=4 * biggest + (64 << 20),
            output_bytes=self.config.output_bytes,
            isolate_network=self.config.isolate_network and network_isolation_available(),
            drop_privileges=self.config.drop_privileges
            and (not kernel or bool(self._python_drops)),
        )

    def _limits_for(
        self, built: Built, wall_s: float, cases: Sequence[Case], deadline: Deadline
    ) -> Limits:
        """Bounds for one run of ``built``; ``wall_s`` cut to what the deadline leaves."""
        kernel = built.task.mode is TaskMode.KERNEL_TO_KERNEL
        return self._limits(deadline.cap(wall_s), cases, kernel=kernel)

    def _probe_python(self, flags: list[str], deadline: Deadline) -> None:
        """Whether the kernel runner's interpreter starts as ``nobody``; checked once.

        An interpreter or packages under a private home (``/root/...``) cannot be read once
        privileges are dropped. The runner then keeps them (its candidate is device code,
        which makes no system calls), in every other respect isolated, and says so.
        """
        if self._python_drops is None:
            with scratch("python-") as root:
                wall_s = deadline.cap(60.0)
                limits = Limits(wall_s=wall_s, drop_privileges=True, isolate_network=False)
                self._python_drops = self._exec(python_probe(), root, limits).ok
        if not self._python_drops and self.config.drop_privileges:
            flags.append(
                "privileges not dropped: the Python interpreter or its packages are not "
                "readable by 'nobody'"
            )

    def _exec(
        self,
        program: Program,
        root: Path,
        limits: Limits,
        prefix: Sequence[str] = (),
        arguments: Sequence[str] = (".",),
    ) -> RunOutcome:
        """Run ``program`` from copies inside its private ``root``: nothing else is writable."""
        env = self._stage(program, root)
        return self._runner([*prefix, *program.argv, *arguments], root, limits, env)

    def _stage(self, program: Program, root: Path) -> dict[str, str]:
        """``program``'s copies in ``root``, made private to the run; its environment."""
        program.stage(root)
        prepare_private_dir(root)
        if program.interpreted:
            allow_traversal(root)
        return {**self._run_environment(root), **program.environment}

    def _run_environment(self, home: Path) -> dict[str, str]:
        fixed = {"PATH": "/usr/local/bin:/usr/bin:/bin", "CUDA_CACHE_DISABLE": "1"}
        return {**self._run_base, **fixed, "HOME": str(home)}

    @staticmethod
    def _write_cases(task: Task, root: Path, cases: Sequence[Case], reps: int) -> None:
        """The cases' files and, for a kernel, the launch plan the kernel runner reads."""
        write_cases(root, cases, reps=reps)
        if task.launch is not None:
            write_plan(root, task, cases)

    def _canary(self, flags: list[str], deadline: Deadline) -> bool:
        if not self._suspect:
            return True
        limits = Limits(
            wall_s=deadline.cap(60.0),
            drop_privileges=self.config.drop_privileges,
            isolate_network=False,
        )
        probe = run_probe(
            self.compiler,
            self._runner,
            limits,
            self._run_environment(Path("/tmp")),
            deadline=deadline,
        )
        if isinstance(probe, str):
            flags.append(probe)
            return False
        self._limits_found = probe
        self._suspect = False
        return True

    def _run_on_gpu(self, built: Built, deadline: Deadline) -> Evaluation:
        task = built.task
        flags: list[str] = []
        if not self._canary(flags, deadline):
            if deadline.expired:
                return Evaluation(Status.TIMEOUT, built.code_hash, f"{_LATE} during the canary")
            unusable = self._not_run(built, "the GPU failed its canary check")
            return replace(unusable, flags=(*unusable.flags, *flags))
        if task.mode is TaskMode.KERNEL_TO_KERNEL:
            self._probe_python(flags, deadline)
            found = self._run_kernel(built, flags, deadline)
        else:
            found = self._run_host(built, flags, deadline)
        sizes = (*task.correctness_sizes, task.timing_size)
        if isinstance(found, Verdict):
            return Evaluation(
                found.status,
                built.code_hash,
                feedback=_trim(found.feedback),
                device=self.device,
                sizes=sizes,
                seeds=self.config.seeds,
                flags=tuple(flags),
            )
        primary, every = found
        where = self.device.name if self.device else "?"
        return Evaluation(
            Status.VERIFIED,
            built.code_hash,
            feedback=f"{primary.speedup:.2f}x ({primary.mode}) on {where}",
            timing=primary,
            device=self.device,
            sizes=sizes,
            seeds=self.config.seeds,
            flags=tuple(flags),
            timings=every,
        )

    def _run_host(
        self, built: Built, flags: list[str], deadline: Deadline
    ) -> Verdict | tuple[Timing, tuple[Timing, ...]]:
        """The candidate's one process: small cases, then the timed, partly checked calls."""
        task = built.task
        prepared = self._task_build(task, deadline, gpu_held=True)
        if prepared is None or prepared.timing is None:
            return Verdict(Status.TIMEOUT, f"{_LATE} while the task's data was prepared")
        timing = prepared.timing
        assert self._limits_found is not None
        if not timing.telling:
            flags.append(
                "no input variant changes this task's answer at the timing size: a candidate "
                "that returned an earlier call's answer there would not be caught"
            )
        limits = self._limits_for(
            built, self.config.timing_timeout_s, [timing.case, *built.cases], deadline
        )
        self._note_isolation(limits, flags)
        with scratch("run-") as root:
            for k, case in enumerate(built.cases):
                stage_case(root, case_folder(k), case.arrays)
            session = self._open(built.check, root, limits, task, built.cases, timing=timing)
            began = time.perf_counter()
            try:
                harness = Harness(session, task, call_wall_s=self.config.run_timeout_s)
                started = time.perf_counter()
                if not harness.locked:
                    flags.append("system calls not restricted: seccomp is unavailable here")
                harness.flush(max(2 * self._limits_found.l2_bytes, 8 << 20))
                found = check_and_time(
                    task,
                    harness,
                    built.cases,
                    built.expected,
                    timing,
                    adaptive=self._adaptive,
                    checked=self.config.checked_calls,
                    rng=np.random.default_rng(secrets.randbits(64)),
                )
                harness.quit()
            except HarnessStopped:
                return self._stopped(session.close(), "the candidate")
            session.close()
        ended = time.perf_counter()
        if isinstance(found, Verdict):
            return found
        log.info(
            "%s: started in %.2f s, %d timed calls (%.2f s on the host clock) in %.2f s",
            task.name,
            started - began,
            len(found),
            sum(s.host_ms for s in found) / 1e3,
            ended - started,
        )
        return self._judge(task, found, timing.reference_ms, _HOST_MODES, timing.case, flags=flags)

    def _judge(
        self,
        task: Task,
        samples: Sequence[CallSample],
        reference_ms: Sequence[float],
        modes: Sequence[TimingMode],
        case: Case,
        *,
        flags: list[str],
    ) -> Verdict | tuple[Timing, tuple[Timing, ...]]:
        """Labelled timings from the samples, unless a clock or the roofline objects."""
        assert self._limits_found is not None
        objection = no_gpu_work(samples) or clock_disagreement(samples) or cpu_elsewhere(samples)
        if objection is not None:
            return Verdict(Status.IMPLAUSIBLE, objection)
        limits = self._limits_found
        floor = copy_floor_ms(
            task,
            case.arrays,
            limits.host_to_device_bytes_per_s,
            limits.device_to_host_bytes_per_s,
            returned_bytes(task, case),
        )
        summaries = (summarize(samples, reference_ms, mode) for mode in modes)
        every = tuple(
            replace(timing, copy_floor_ms=floor) if timing.mode is TimingMode.END_TO_END else timing
            for timing in summaries
            if timing is not None
        )
        primary = next((t for t in every if t.mode is task.timing_mode), every[0])
        if primary.mode is not task.timing_mode:
            flags.append(
                f"{task.timing_mode} time unavailable (a call launched no timed kernel, or the "
                f"candidate is a kernel): reporting {primary.mode}"
            )
        bound = roofline_ms(bytes_moved(case.arrays), self._limits_found.peak_bytes_per_s)
        for measured in every:
            below = under_roofline(measured, bound)
            if below is not None:
                return Verdict(Status.IMPLAUSIBLE, below)
        look = second_look(primary)
        if look is not None:
            flags.append(look)
        return primary, every

    def _note_isolation(self, limits: Limits, flags: list[str]) -> None:
        if not limits.isolate_network and self.config.isolate_network:
            flags.append("network not isolated: no permission to create a network namespace")

    def _run_kernel(
        self, built: Built, flags: list[str], deadline: Deadline
    ) -> Verdict | tuple[Timing, tuple[Timing, ...]]:
        """A kernel candidate: the checks, then the timing, each in its own runner process."""
        task = built.task
        seeds = [secrets.randbits(63) for _ in range(self.config.seeds)]
        plan = [(binding, seed) for seed in seeds for binding in task.correctness_sizes]
        plan.append((task.timing_size, seeds[0]))
        cases = [build_case(task, binding, seed, self._make_inputs) for binding, seed in plan]
        with scratch("run-") as root:
            expected = self._correctness(built, cases, root, flags, deadline)
            if isinstance(expected, Verdict):
                return expected
            return self._timing(
                built, cases[-1], expected[-1], root / "timing", flags, deadline=deadline
            )

    def _stopped(self, outcome: RunOutcome, what: str) -> Verdict:
        """A candidate process that did not finish cleanly; the GPU is suspect until probed."""
        self._suspect = True
        said = outcome.stderr.strip() or outcome.stdout.strip()
        if outcome.timed_out:
            return Verdict(Status.TIMEOUT, f"{what} {outcome.describe()}")
        if outcome.returncode == EXIT_MANAGED_MEMORY:
            return Verdict(Status.GATE_REJECTED, said)
        if outcome.returncode in (EXIT_CUDA_ERROR, EXIT_OUT_OF_BOUNDS):
            return Verdict(Status.CRASH, f"{what}: {said}")
        return Verdict(Status.CRASH, f"{what} {outcome.describe()}: {said[-600:]}")

    def _correctness(
        self,
        built: Built,
        cases: Sequence[Case],
        root: Path,
        flags: list[str],
        deadline: Deadline,
    ) -> Verdict | list[dict[str, Array]]:
        """Candidate first (twice per case), then the reference, each in its own process."""
        task = built.task
        limits = self._limits_for(built, self.config.run_timeout_s, cases, deadline)
        if not limits.isolate_network and self.config.isolate_network:
            flags.append("network not isolated: no permission to create a network namespace")
        candidate_root, reference_root = root / "candidate", root / "reference"
        self._write_cases(task, candidate_root, cases, reps=2)
        outcome = self._exec(built.check, candidate_root, limits)
        if not outcome.ok:
            return self._stopped(outcome, "the candidate")
        self._write_cases(task, reference_root, cases, reps=1)
        reference = self._exec(built.reference, reference_root, limits)
        if reference.timed_out and deadline.expired:
            return Verdict(Status.TIMEOUT, f"{_LATE} while the reference ran")
        if not reference.ok:
            raise TaskError(
                f"task {task.name}: the reference itself failed ({reference.describe()}): "
                f"{reference.stderr.strip()[:500]}"
            )
        expected = []
        for k, case in enumerate(cases):
            want = read_outputs(task, reference_root / f"case{k}", "0")
            if want is None:
                raise TaskError(f"task {task.name}: the reference wrote no outputs")
            folder = candidate_root / f"case{k}"
            first = self._check_call(
                task=task, case=case, want=want, folder=folder, tag="0", against=None
            )
            if isinstance(first, Verdict):
                return first
            second = self._check_call(
                task=task, case=case, want=first, folder=folder, tag="1", against="second call"
            )
            if isinstance(second, Verdict):
                return second
            expected.append(want)
        return expected

    def _check_call(
        self,
        *,
        task: Task,
        case: Case,
        want: dict[str, Array],
        folder: Path,
        tag: str,
        against: str | None,
    ) -> Verdict | dict[str, Array]:
        """Inputs untouched and outputs equal to ``want`` (the reference's, or the first
        call's when ``against`` names what the comparison is for)."""
        where = f"at size {dict(case.binding)}"
        hashes = read_hashes(folder, tag)
        got = read_outputs(task, folder, tag)
        if hashes is None or got is None:
            self._suspect = True
            return Verdict(Status.CRASH, "the process ended before the harness wrote its outputs")
        for index, value in case.input_hashes(task).items():
            if hashes.get(index) != value:
                name = task.args[index].name
                return Verdict(Status.INPUT_MODIFIED, f"{where}: input '{name}' was modified")
        for name, expected in want.items():
            mismatch = first_mismatch(name, expected, got[name], task.tolerance.at(case.binding))
            if mismatch is None:
                continue
            if against is None:
                return Verdict(Status.WRONG_OUTPUT, f"{where}: {mismatch}")
            return Verdict(
                Status.NONDETERMINISTIC,
                f"{where}, {against} on the same inputs: {mismatch}",
            )
        return got

    def sanitize(self, task: Task, source: str, *, deadline: Deadline = NO_DEADLINE) -> Sanitized:
        """compute-sanitizer's memcheck and racecheck on a final answer, at a small size.

        Too slow for every candidate (tens of seconds), so it runs on the answer a job is
        about to report as verified; a finding means the answer is not reported.
        """
        built = self.build(task, source, deadline=deadline)
        if isinstance(built, Evaluation):
            return Sanitized(False, built.feedback)
        try:
            tool = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
            if self.device is None or not Path(tool).exists():
                return Sanitized(True, "sanitizer not run: no GPU or no compute-sanitizer here")
            with self.gpu_lock.hold(deadline) as held, scratch("sanitizer-") as root:
                if not held:
                    late = f"{_LATE} while another process held the GPU"
                    return Sanitized(False, late, late=True)
                return self._sanitize(built, root, tool, deadline)
        finally:
            shutil.rmtree(built.work, ignore_errors=True)

    def _sanitize(self, built: Built, root: Path, tool: str, deadline: Deadline) -> Sanitized:
        kernel = built.task.mode is TaskMode.KERNEL_TO_KERNEL
        cases = built.cases or (
            build_case(built.task, built.task.correctness_sizes[-1], 1, self._make_inputs),
        )
        small = [min(cases, key=lambda case: sum(a.nbytes for a in case.arrays))]
        # compute-sanitizer talks to its target over a loopback socket, which is down in a
        # fresh network namespace: the sanitizer's namespace has its loopback up, and
        # nothing else. Not the host's network: the candidate runs under it, and
        # sanitizers of several GPUs' workers on one host took each other's ports and
        # spun, holding their GPUs (benchmarks/results/gpu-h200x4-mining.json). The
        # harness also skips its lockdown in script mode.
        limits = replace(
            self._limits_for(built, self.config.run_timeout_s * 10, small, deadline),
            loopback=True,
        )
        # The sanitizer resolves its target by absolute path: as ``nobody`` it needs to pass
        # through every (root-owned, unlistable) parent up to the system temp directory.
        root.chmod(0o711)
        allow_traversal(root / "memcheck")
        for check in ("memcheck", "racecheck"):
            folder = root / check
            prefix = [tool, "--tool", check, "--error-exitcode", str(_SANITIZER_EXIT)]
            if kernel:
                self._write_cases(built.task, folder, small, reps=1)
                outcome = self._exec(built.check, folder, limits, prefix)
            else:
                stage_case(folder, case_folder(0), small[0].arrays)
                (folder / "script.txt").write_text(f"load {case_folder(0)}\ncall 0\nquit\n")
                script = ("script", "script.txt", "answers.txt")
                outcome = self._exec(built.check, folder, limits, prefix, script)
            if outcome.returncode == _SANITIZER_EXIT:
                report = outcome.stdout.strip() or outcome.stderr.strip()
                return Sanitized(False, _trim(f"{check}: {report}"))
            if not outcome.ok:
                stopped = self._stopped(outcome, f"the candidate under {check}")
                return Sanitized(False, _trim(stopped.feedback), late=deadline.expired)
        return Sanitized(True, "compute-sanitizer memcheck and racecheck clean")

    def _timing(
        self,
        built: Built,
        case: Case,
        want: dict[str, Array],
        root: Path,
        flags: list[str],
        *,
        deadline: Deadline,
    ) -> Verdict | tuple[Timing, tuple[Timing, ...]]:
        """A kernel's interleaved timed calls, then its last call re-checked."""
        task = built.task
        assert self._limits_found is not None
        self._write_cases(task, root, [case], reps=0)
        flush = max(2 * self._limits_found.l2_bytes, 8 << 20)
        (root / "timing.cfg").write_text(
            f"{self.config.warmups} {self.config.timed_runs} {flush} "
            f"{self.config.host_flush_bytes} {secrets.randbits(63)}\n"
        )
        limits = self._limits_for(built, self.config.timing_timeout_s, [case], deadline)
        outcome = self._exec(built.timing, root, limits)
        if not outcome.ok:
            return self._stopped(outcome, "the timed run")
        checked = self._check_call(
            task=task, case=case, want=want, folder=root / "case0", tag="k", against=None
        )
        if isinstance(checked, Verdict):
            return Verdict(checked.status, f"re-check after timing: {checked.feedback}")
        timing_file = root / "timing.txt"
        parsed = parse_kernel_samples(timing_file.read_text()) if timing_file.exists() else None
        if parsed is None:
            return Verdict(Status.CRASH, "the timed run wrote no timing samples")
        samples, reference_ms = parsed
        modes = (TimingMode.KERNEL_ONLY,)
        return self._judge(task, samples, reference_ms, modes, case, flags=flags)


def verify(
    task: Task,
    candidate_source: str,
    *,
    config: VerifyConfig,
    runner: Runner = run_isolated,
    query: Query | None = None,
    make_inputs: InputMaker = _default_inputs,
    gate: GateCheck = _default_gate,
) -> Evaluation:
    """Check one candidate from scratch (a :class:`Verifier` reuses its session across many)."""
    verifier = Verifier(config, runner=runner, query=query, make_inputs=make_inputs, gate=gate)
    return verifier.verify(task, candidate_source)
