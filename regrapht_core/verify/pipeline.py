"""The verifier: gate → compile → isolated correctness runs → sanitizer → timing → plausibility.

Stages run cheapest first and the first failure ends the run with trimmed feedback for the
proposer. Both task modes share every stage: a host-function candidate (seq2cuda) runs in
the generated C++ harness, a ``__global__`` candidate (kernel2kernel) in the Python kernel
runner against the original kernel; both write the same files and are judged by the same
code here. The work splits in two so a pool can overlap them: :meth:`Verifier.build` (gate,
compile, link; CPU only, safe to run in parallel) and :meth:`Verifier.run` (the GPU, one
candidate at a time per device). Without a GPU, a candidate that builds ends ``NOT_RUN``:
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
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.contracts.evaluation import DeviceInfo, Evaluation, Status, Timing
from regrapht_core.contracts.task import SizeBinding, SourceLanguage, Task, TaskMode, TimingMode
from regrapht_core.errors import TaskError
from regrapht_core.lifetime import scratch, scratch_dir
from regrapht_core.verify.cases import (
    Array,
    Case,
    InputMaker,
    build_case,
    read_hashes,
    read_outputs,
    write_cases,
)
from regrapht_core.verify.compare import first_mismatch
from regrapht_core.verify.compile import CompileOutcome, Compiler
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.device import DEFAULT_ARCH, Query, detect_device, tool_query
from regrapht_core.verify.harness import (
    LINK_WRAPS,
    REFERENCE_SYMBOL,
    HarnessKind,
    harness_source,
    reference_source,
)
from regrapht_core.verify.kernel_build import KernelBuildError, kernel_programs
from regrapht_core.verify.launch import write_plan
from regrapht_core.verify.plausibility import bytes_moved, roofline_ms, second_look, under_roofline
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
    allow_traversal,
    network_isolation_available,
    prepare_private_dir,
    run_isolated,
)
from regrapht_core.verify.timing import clock_disagreement, parse_samples, summarize

__all__ = ["Built", "GateCheck", "Verifier", "verify"]

log = logging.getLogger(__name__)

GateCheck = Callable[[str, Task], str | None]
"""The static gate: ``None`` to accept, or the reason the source is rejected."""

_FEEDBACK_CHARS = 1500
_SANITIZER_EXIT = 86
_HOST_TIMED = (("e", TimingMode.END_TO_END), ("k", TimingMode.KERNEL_ONLY))
_KERNEL_TIMED = (("k", TimingMode.KERNEL_ONLY),)
_KERNEL_MODULE = "reference module"
_LATE = "the job's time limit passed"


@dataclass(frozen=True, slots=True)
class Built:
    """A candidate that passed the gate and compiled: its programs, awaiting the GPU."""

    task: Task
    code_hash: str
    work: Path
    check: Program
    timing: Program
    reference: Program
    timed: tuple[tuple[str, TimingMode], ...] = _HOST_TIMED
    """The timing run's re-checked output tags and the mode each tag's calls measure."""


@dataclass(frozen=True, slots=True)
class _Stop:
    """A stage's verdict that ends the run."""

    status: Status
    feedback: str


def _trim(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _FEEDBACK_CHARS else text[:_FEEDBACK_CHARS] + " ..."


def _not_built(outcome: CompileOutcome, code_hash: str) -> Evaluation:
    status = Status.TIMEOUT if outcome.timed_out else Status.COMPILE_ERROR
    return Evaluation(status, code_hash, _trim(outcome.log))


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
        self._gpu = threading.Lock()
        self._limits: DeviceLimits | None = None
        self._suspect = True
        self._python_drops: bool | None = None
        self._objects: dict[str, dict[str, Path]] = {}
        self._objects_lock = threading.Lock()
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
        candidate = self.compiler.cuda_object(source, deadline=deadline)
        if not candidate.ok or candidate.path is None:
            return _not_built(candidate, code_hash)
        objects = self._task_objects(task, deadline)
        if objects is None:
            return Evaluation(Status.TIMEOUT, code_hash, f"{_LATE} while the harness compiled")
        work = scratch_dir("build-")
        try:
            failed = self._link(task, objects, candidate.path, work, deadline)
        except TaskError:
            shutil.rmtree(work, ignore_errors=True)
            raise
        if failed is not None:
            shutil.rmtree(work, ignore_errors=True)
            return _not_built(failed, code_hash)
        return Built(
            task,
            code_hash,
            work,
            check=native_program(work / "check"),
            timing=native_program(work / "timing"),
            reference=native_program(work / "reference"),
        )

    def _link(
        self, task: Task, objects: dict[str, Path], candidate: Path, work: Path, deadline: Deadline
    ) -> CompileOutcome | None:
        """The reference, check and timing programs in ``work``; the failed step, if one did.

        The reference's entry is renamed to a secret token in the timing program, so the
        candidate can neither call nor replace it. A reference that does not rename or link
        is the task's fault (``TaskError``) unless the deadline cut it short.
        """
        token = "r_" + secrets.token_hex(12)
        harness_t, ref_t = work / "harness_t.o", work / "reference_t.o"
        renamed = self.compiler.rename_symbol(
            objects[HarnessKind.TIMING],
            REFERENCE_SYMBOL,
            token,
            harness_t,
            only_global=False,
            deadline=deadline,
        ) and self.compiler.rename_symbol(
            objects["task source with bridge"],
            REFERENCE_SYMBOL,
            token,
            ref_t,
            only_global=True,
            deadline=deadline,
        )
        if not renamed and deadline.expired:
            return CompileOutcome(False, None, f"{_LATE} while linking", timed_out=True)
        if not renamed:
            raise TaskError(f"task {task.name}: objcopy could not rename the reference entry")
        reference = self.compiler.link(
            [objects[HarnessKind.REFERENCE], objects["task source"]],
            work / "reference",
            cuda=task.language is SourceLanguage.CUDA,
            deadline=deadline,
        )
        if reference.timed_out:
            return reference
        if not reference.ok:
            raise TaskError(f"task {task.name}: the reference does not link: {reference.log}")
        programs = {
            "check": [objects[HarnessKind.CHECK], candidate],
            "timing": [harness_t, candidate, ref_t],
        }
        for name, parts in programs.items():
            linked = self.compiler.link(parts, work / name, wraps=LINK_WRAPS, deadline=deadline)
            if not linked.ok:
                return linked
        return None

    def _build_kernel(
        self, task: Task, source: str, code_hash: str, deadline: Deadline
    ) -> Built | Evaluation:
        """The candidate kernel as a module of its own, next to the original kernel's."""
        candidate = self.compiler.cuda_module(source, deadline=deadline)
        if not candidate.ok or candidate.path is None:
            return _not_built(candidate, code_hash)
        objects = self._task_objects(task, deadline)
        if objects is None:
            return Evaluation(Status.TIMEOUT, code_hash, f"{_LATE} while the original compiled")
        reference = objects[_KERNEL_MODULE]
        work = scratch_dir("build-")
        try:
            check, timing, original = kernel_programs(task, candidate.path, reference, work)
        except KernelBuildError as error:
            shutil.rmtree(work, ignore_errors=True)
            return Evaluation(Status.COMPILE_ERROR, code_hash, _trim(str(error)))
        return Built(task, code_hash, work, check, timing, original, timed=_KERNEL_TIMED)

    def _task_objects(self, task: Task, deadline: Deadline) -> dict[str, Path] | None:
        """Harness builds and the reference, compiled once per task and session; ``None``
        when the deadline stopped them (nothing is kept, a later job compiles them again).

        A lock per task keeps concurrent builds of one task's candidates from compiling the
        same five units side by side; the units themselves compile in parallel.
        """
        key = hashlib.sha256(repr(task).encode()).hexdigest()
        with self._objects_lock:
            lock = self._task_locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._objects:
                compiled = self._compile_task(task, deadline)
                if compiled is None:
                    return None
                self._objects[key] = compiled
            return self._objects[key]

    def _compile_task(self, task: Task, deadline: Deadline) -> dict[str, Path] | None:
        compile_cuda, compile_host = self.compiler.cuda_object, self.compiler.host_object
        compile_task = compile_cuda if task.language is SourceLanguage.CUDA else compile_host
        if task.mode is TaskMode.KERNEL_TO_KERNEL:
            units = {_KERNEL_MODULE: (self.compiler.cuda_module, task.source)}
        else:
            units = {
                HarnessKind.CHECK: (compile_cuda, harness_source(task, HarnessKind.CHECK)),
                HarnessKind.TIMING: (compile_cuda, harness_source(task, HarnessKind.TIMING)),
                HarnessKind.REFERENCE: (
                    compile_host,
                    harness_source(task, HarnessKind.REFERENCE),
                ),
                "task source": (compile_task, task.source),
                "task source with bridge": (compile_task, reference_source(task)),
            }
        with ThreadPoolExecutor(max_workers=len(units)) as pool:
            futures = {
                name: pool.submit(fn, source, deadline=deadline)
                for name, (fn, source) in units.items()
            }
        outcomes = {name: future.result() for name, future in futures.items()}
        if any(outcome.timed_out for outcome in outcomes.values()):
            return None
        paths: dict[str, Path] = {}
        for name, outcome in outcomes.items():
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
            with self._gpu:
                if deadline.expired:
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

    def _limits_for(
        self, built: Built, wall_s: float, cases: Sequence[Case], deadline: Deadline
    ) -> Limits:
        """Bounds for one run of ``built``; ``wall_s`` cut to what the deadline leaves."""
        biggest = max((a.nbytes for c in cases for a in c.arrays), default=0)
        kernel = built.task.mode is TaskMode.KERNEL_TO_KERNEL
        return Limits(
            wall_s=deadline.cap(wall_s),
            cpu_s=int(wall_s * 2) + 5,
            file_bytes=4 * biggest + (64 << 20),
            output_bytes=self.config.output_bytes,
            isolate_network=self.config.isolate_network and network_isolation_available(),
            drop_privileges=self.config.drop_privileges
            and (not kernel or bool(self._python_drops)),
        )

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
        self, program: Program, root: Path, limits: Limits, prefix: Sequence[str] = ()
    ) -> RunOutcome:
        """Run ``program`` from copies inside its private ``root``: nothing else is writable."""
        program.stage(root)
        prepare_private_dir(root)
        if program.interpreted:
            allow_traversal(root)
        argv = [*prefix, *program.argv, "."]
        env = {**self._run_environment(root), **program.environment}
        return self._runner(argv, root, limits, env)

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
        self._limits = probe
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
        seeds = [secrets.randbits(63) for _ in range(self.config.seeds)]
        plan = [(binding, seed) for seed in seeds for binding in task.correctness_sizes]
        plan.append((task.timing_size, seeds[0]))
        cases = [build_case(task, binding, seed, self._make_inputs) for binding, seed in plan]

        def result(status: Status, feedback: str, *timings: Timing) -> Evaluation:
            return Evaluation(
                status,
                built.code_hash,
                feedback=_trim(feedback),
                timing=timings[0] if timings else None,
                device=self.device,
                sizes=(*task.correctness_sizes, task.timing_size),
                seeds=len(seeds),
                flags=tuple(flags),
                timings=timings[1:],
            )

        with scratch("run-") as root:
            expected = self._correctness(built, cases, root, flags, deadline)
            if isinstance(expected, _Stop):
                return result(expected.status, expected.feedback)
            if self.config.sanitizer:
                sanitized = self._sanitize(
                    built, root / "sanitizer", cases, flags, deadline=deadline
                )
                if sanitized is not None:
                    return result(sanitized.status, sanitized.feedback)
            timed = self._timing(
                built, cases[-1], expected[-1], root / "timing", flags, deadline=deadline
            )
        if isinstance(timed, _Stop):
            return result(timed.status, timed.feedback)
        primary, every = timed
        summary = (
            f"{primary.speedup:.2f}x ({primary.mode}) on {self.device.name if self.device else '?'}"
        )
        return result(Status.VERIFIED, summary, primary, *every)

    def _stopped(self, outcome: RunOutcome, what: str) -> _Stop:
        """A candidate process that did not finish cleanly; the GPU is suspect until probed."""
        self._suspect = True
        said = outcome.stderr.strip() or outcome.stdout.strip()
        if outcome.timed_out:
            return _Stop(Status.TIMEOUT, f"{what} {outcome.describe()}")
        if outcome.returncode == EXIT_MANAGED_MEMORY:
            return _Stop(Status.GATE_REJECTED, said)
        if outcome.returncode in (EXIT_CUDA_ERROR, EXIT_OUT_OF_BOUNDS):
            return _Stop(Status.CRASH, f"{what}: {said}")
        return _Stop(Status.CRASH, f"{what} {outcome.describe()}: {said[-600:]}")

    def _correctness(
        self,
        built: Built,
        cases: Sequence[Case],
        root: Path,
        flags: list[str],
        deadline: Deadline,
    ) -> _Stop | list[dict[str, Array]]:
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
            return _Stop(Status.TIMEOUT, f"{_LATE} while the reference ran")
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
            if isinstance(first, _Stop):
                return first
            second = self._check_call(
                task=task, case=case, want=first, folder=folder, tag="1", against="second call"
            )
            if isinstance(second, _Stop):
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
    ) -> _Stop | dict[str, Array]:
        """Inputs untouched and outputs equal to ``want`` (the reference's, or the first
        call's when ``against`` names what the comparison is for)."""
        where = f"at size {dict(case.binding)}"
        hashes = read_hashes(folder, tag)
        got = read_outputs(task, folder, tag)
        if hashes is None or got is None:
            self._suspect = True
            return _Stop(Status.CRASH, "the process ended before the harness wrote its outputs")
        for index, value in case.input_hashes(task).items():
            if hashes.get(index) != value:
                name = task.args[index].name
                return _Stop(Status.INPUT_MODIFIED, f"{where}: input '{name}' was modified")
        for name, expected in want.items():
            mismatch = first_mismatch(name, expected, got[name], task.tolerance)
            if mismatch is None:
                continue
            if against is None:
                return _Stop(Status.WRONG_OUTPUT, f"{where}: {mismatch}")
            return _Stop(
                Status.NONDETERMINISTIC,
                f"{where}, {against} on the same inputs: {mismatch}",
            )
        return got

    def _sanitize(
        self,
        built: Built,
        root: Path,
        cases: Sequence[Case],
        flags: list[str],
        *,
        deadline: Deadline,
    ) -> _Stop | None:
        """compute-sanitizer's memcheck and racecheck on the smallest case, in ``root``."""
        tool = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
        if not Path(tool).exists():
            flags.append("sanitizer skipped: compute-sanitizer not found")
            return None
        small = [min(cases[:-1] or cases, key=lambda case: sum(a.nbytes for a in case.arrays))]
        # compute-sanitizer talks to its target over a loopback socket, which is down in a
        # fresh network namespace; this binary already ran isolated in the stages before.
        limits = replace(
            self._limits_for(built, self.config.run_timeout_s * 10, small, deadline),
            isolate_network=False,
        )
        # The sanitizer resolves its target by absolute path: as ``nobody`` it needs to pass
        # through every (root-owned, unlistable) parent up to the system temp directory,
        # the process's scratch root included. Earlier stages' runs are over.
        root.mkdir(exist_ok=True)
        root.chmod(0o711)
        allow_traversal(root / "memcheck")
        for check in ("memcheck", "racecheck"):
            folder = root / check
            self._write_cases(built.task, folder, small, reps=1)
            prefix = [tool, "--tool", check, "--error-exitcode", str(_SANITIZER_EXIT)]
            outcome = self._exec(built.check, folder, limits, prefix)
            if outcome.returncode == _SANITIZER_EXIT:
                report = outcome.stdout.strip() or outcome.stderr.strip()
                return _Stop(Status.SANITIZER_ERROR, f"{check}: {report}")
            if not outcome.ok:
                return self._stopped(outcome, f"the candidate under {check}")
        flags.append("compute-sanitizer memcheck and racecheck clean")
        return None

    def _timing(
        self,
        built: Built,
        case: Case,
        want: dict[str, Array],
        root: Path,
        flags: list[str],
        *,
        deadline: Deadline,
    ) -> _Stop | tuple[Timing, tuple[Timing, ...]]:
        """Interleaved timed calls, then the last call of each mode re-checked."""
        task = built.task
        assert self._limits is not None
        self._write_cases(task, root, [case], reps=0)
        flush = max(2 * self._limits.l2_bytes, 8 << 20)
        (root / "timing.cfg").write_text(
            f"{self.config.warmups} {self.config.timed_runs} {flush} "
            f"{self.config.host_flush_bytes} {secrets.randbits(63)}\n"
        )
        limits = self._limits_for(built, self.config.timing_timeout_s, [case], deadline)
        outcome = self._exec(built.timing, root, limits)
        if not outcome.ok:
            return self._stopped(outcome, "the timed run")
        for tag, mode in built.timed:
            checked = self._check_call(
                task=task, case=case, want=want, folder=root / "case0", tag=tag, against=None
            )
            if isinstance(checked, _Stop):
                feedback = f"re-check after timing ({mode}): {checked.feedback}"
                return _Stop(checked.status, feedback)
        timing_file = root / "timing.txt"
        samples = parse_samples(timing_file.read_text()) if timing_file.exists() else None
        if samples is None:
            return _Stop(Status.CRASH, "the timed run wrote no timing samples")
        disagreement = clock_disagreement(samples)
        if disagreement is not None:
            return _Stop(Status.IMPLAUSIBLE, disagreement)
        summaries = (summarize(samples, mode) for _, mode in built.timed)
        every = tuple(timing for timing in summaries if timing is not None)
        primary = next((t for t in every if t.mode is task.timing_mode), every[0])
        if primary.mode is not task.timing_mode:
            flags.append(
                f"{task.timing_mode} time unavailable (a call launched no timed kernel, or the "
                f"candidate is a kernel): reporting {primary.mode}"
            )
        bound = roofline_ms(bytes_moved(case.arrays), self._limits.peak_bytes_per_s)
        for measured in every:
            below = under_roofline(measured, bound)
            if below is not None:
                return _Stop(Status.IMPLAUSIBLE, below)
        look = second_look(primary)
        if look is not None:
            flags.append(look)
        return primary, every


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
