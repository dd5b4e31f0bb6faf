"""Stage 1 of the verifier: refuse, from the source alone, what a cheat needs.

Generated code is untrusted and known to game weak harnesses. Everything a cheat needs
that shows in the source -- I/O, processes, the environment, threads, clocks, side
streams, managed memory, inline assembly, state that outlives a call, the harness's or the
reference's symbols -- is refused here, before nvcc runs, with a line and a reason the
proposer can act on. The gate is deliberately conservative: an honest candidate that trips
it is told exactly why and can be rewritten, while a cheat that slips through would cost
the product its credibility. The harness and the sandbox back it up at run time for what
text cannot show (sizes, races, out-of-bounds writes, output values).

Decisions are taken on the tree-sitter syntax tree, never on substrings: a name is an
identifier node, so comments and strings neither trigger nor hide a rule. Two lexical
passes come first because the tree cannot see them: line splices (backslash-newline) are
applied as the compiler's translation phase 2 does, since ``pri\\<newline>ntf`` is
``printf`` to nvcc; and trigraphs are refused outright. Macro bodies are parsed on their
own and held to the same name rules, since a macro can spell any call; token pasting
(``##``) is refused because it assembles names the gate never sees.

Choices worth knowing:

* Includes: CUDA runtime and math headers, CUB, Thrust (less its OpenMP/TBB back ends and
  futures), libcu++ (``cuda/``), cooperative groups, cuBLAS, and side-effect-free C/C++
  headers. ``<cstdlib>`` is allowed for ``malloc``; its dangerous functions are refused by
  name. ``<cassert>`` is allowed: a failing assert is a crash, not a cheat.
* The entry must have C++ linkage: the harness declares it from the task's signature
  without ``extern "C"``, so a C-linkage entry could never link.
* ``__constant__`` and ``__shared__`` variables, and globals that are const all the way
  down, are allowed; every other namespace-scope or ``static`` variable (``__device__``
  ones included) could carry a result from one call to the next and is refused. Reading
  device symbols back to the host is refused for the same reason.
* Defining a function under a CUDA-library, C-library or reserved name, or a global
  ``operator new``/``delete``, is refused: the candidate is linked into the harness's
  process, so its definition would replace the harness's own.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import NamedTuple

from regrapht_core.contracts.task import Task, TaskMode
from regrapht_core.cxx.declarators import (
    TRANSPARENT_SCOPES,
    declarator_name,
    immutable,
    inner_declarator,
    is_prototype,
    namespace_scope,
    specifiers,
    text_in,
)
from regrapht_core.cxx.lexing import Spliced, decode_ucn, splice_lines, trigraph_lines
from regrapht_core.cxx.parse import Node, Tree, parse_isolated
from regrapht_core.cxx.signatures import Signature, signature_of
from regrapht_core.cxx.syntax import words
from regrapht_core.errors import TaskError

__all__ = ["GatePolicy", "GateResult", "Rule", "Violation", "check"]


class Rule(StrEnum):
    """Why a candidate was refused; one value per family of cheats."""

    PARSE = "parse"
    INCLUDE = "include"
    PRAGMA = "pragma"
    DIRECTIVE = "directive"
    MACRO = "macro"
    IO = "io"
    PROCESS = "process"
    THREAD = "thread"
    CLOCK = "clock"
    INLINE_ASM = "inline_asm"
    STREAM = "stream"
    GRAPH = "graph"
    L2_POLICY = "l2_policy"
    MANAGED_MEMORY = "managed_memory"
    DEVICE_CONTROL = "device_control"
    HARNESS_SYMBOL = "harness_symbol"
    REFERENCE_SYMBOL = "reference_symbol"
    GLOBAL_STATE = "global_state"
    ATTRIBUTE = "attribute"
    INTERPOSE = "interpose"
    ENTRY = "entry"


class Violation(NamedTuple):
    line: int
    """1-based line in the candidate as submitted."""
    rule: Rule
    message: str


@dataclass(frozen=True, slots=True)
class GatePolicy:
    """What a task lets a candidate do beyond the default."""

    allow_streams: bool = False
    """Streams of its own: only where the harness is known to wait for them."""


@dataclass(frozen=True, slots=True)
class GateResult:
    violations: tuple[Violation, ...]

    @property
    def ok(self) -> bool:
        return not self.violations

    @property
    def feedback(self) -> str:
        """The first violations as short lines for the proposer."""
        shown = [f"line {v.line}: [{v.rule}] {v.message}" for v in self.violations[:12]]
        if len(self.violations) > len(shown):
            shown.append(f"... and {len(self.violations) - len(shown)} more")
        return "\n".join(shown)


# --- What is allowed --------------------------------------------------------------------

_INCLUDES = frozenset(
    {
        "cuda_runtime.h",
        "cuda_runtime_api.h",
        "device_launch_parameters.h",
        "device_functions.h",
        "cuda_fp16.h",
        "cuda_bf16.h",
        "cuda_fp8.h",
        "cuda_pipeline.h",
        "cuda_awbarrier.h",
        "mma.h",
        "cooperative_groups.h",
        "vector_types.h",
        "vector_functions.h",
        "math_constants.h",
        "cuComplex.h",
        "cublas_v2.h",
        "math.h",
        "cmath",
        "cstdint",
        "stdint.h",
        "cstddef",
        "stddef.h",
        "cstring",
        "string.h",
        "cstdlib",
        "stdlib.h",
        "cassert",
        "assert.h",
        "cfloat",
        "float.h",
        "climits",
        "limits.h",
        "limits",
        "algorithm",
        "numeric",
        "vector",
        "array",
        "utility",
        "type_traits",
        "tuple",
        "functional",
        "memory",
        "iterator",
        "initializer_list",
        "new",
        "complex",
        "bit",
        "span",
        "numbers",
        "concepts",
    }
)
_INCLUDE_PREFIXES = ("cub/", "thrust/", "cuda/", "cooperative_groups/")
_INCLUDE_DENIED_PREFIXES = (
    "thrust/system/omp",
    "thrust/system/tbb",
    "thrust/async",
    "thrust/future",
    "thrust/event",
    "cuda/std/chrono",
    "cuda/std/ctime",
)
_PRAGMAS = frozenset({"unroll", "nounroll", "once"})
_DIRECTIVES = frozenset({"#pragma", "#undef"})
_ATTRIBUTES = frozenset(
    {
        "aligned",
        "noinline",
        "always_inline",
        "unused",
        "maybe_unused",
        "nodiscard",
        "likely",
        "unlikely",
        "fallthrough",
        "noreturn",
        "packed",
        "pure",
        "const",
        "hot",
        "cold",
        "flatten",
    }
)
_DEFAULT_STREAM = frozenset({"0", "nullptr", "NULL", "cudaStreamLegacy"})
_EXECUTION_SPACE = frozenset({"__device__", "__host__"})

# --- What is refused by name ------------------------------------------------------------

_IO_WHY = "I/O is the harness's job: a candidate must not print, read or write files"
_PROCESS_WHY = (
    "processes, the environment, signals and non-local exits are off limits "
    "(the harness and the run's secrets live there)"
)
_THREAD_WHY = "host threads escape the timer; parallelism belongs on the GPU"
_CLOCK_WHY = "timing is the harness's job; a candidate that reads clocks can game it"
_STREAM_WHY = (
    "work on a stream of its own can outlive the timer; use the default stream "
    "(this task does not allow streams)"
)
_GRAPH_WHY = "CUDA graphs and host callbacks run work the timer does not see"
_L2_WHY = "L2 persistence settings outlive the call and skew the reference's timing"
_MANAGED_WHY = "managed memory is forbidden: page migration hides transfers from the timer"
_DEVICE_WHY = (
    "device-wide settings, the driver API and runtime compilation reach beyond the "
    "candidate's own work"
)
_READBACK_WHY = "reading device symbols back lets a result survive from one call to the next"
_FRAME_WHY = "inspecting the caller's frame reaches into the harness"
_INTERPOSE_WHY = (
    "a definition under a runtime or C library name replaces that function for the "
    "harness too (a no-op cudaDeviceSynchronize would blind the timer)"
)
_INTERPOSE_NAMES = words(
    "malloc free calloc realloc aligned_alloc posix_memalign memalign valloc memcpy "
    "memmove memset memcmp strlen"
)
_API_PREFIXES = ("cuda", "cublas", "nvrtc", "nccl", "cu")


def _name_table() -> dict[str, tuple[Rule, str]]:
    table: dict[str, tuple[Rule, str]] = {}
    groups: tuple[tuple[str, Rule, str], ...] = (
        (
            "printf fprintf vprintf vfprintf dprintf vdprintf sprintf vsprintf snprintf "
            "vsnprintf puts fputs putchar putc fputc putw perror scanf fscanf vscanf vfscanf "
            "getchar getc fgetc getw fgets gets getline getdelim ungetc fopen fdopen freopen "
            "fclose fflush fread fwrite fseek fseeko ftell ftello rewind fgetpos fsetpos "
            "setvbuf setbuf tmpfile tmpnam mkstemp open openat creat read write pread pwrite "
            "readv writev close lseek unlink unlinkat rename mkdir rmdir chdir getcwd opendir "
            "readdir stat fstat lstat mmap munmap socket connect accept ioctl fcntl dup dup2 "
            "pipe sendfile syslog cout cerr clog cin wcout wcerr wclog wcin ifstream ofstream "
            "fstream filebuf basic_ifstream basic_ofstream basic_fstream FILE stdin stdout "
            "stderr print println",
            Rule.IO,
            _IO_WHY,
        ),
        (
            "system popen pclose execl execlp execle execv execvp execvpe execve fexecve fork "
            "vfork clone posix_spawn posix_spawnp dlopen dlmopen dlsym dlvsym dlerror getenv "
            "secure_getenv setenv putenv unsetenv clearenv environ signal sigaction sigprocmask "
            "raise kill killpg abort exit _Exit quick_exit atexit at_quick_exit setjmp longjmp "
            "sigsetjmp siglongjmp terminate set_terminate ptrace prctl setrlimit setuid seteuid "
            "setgid chroot syscall getpid getppid",
            Rule.PROCESS,
            _PROCESS_WHY,
        ),
        (
            "thread jthread async future shared_future promise packaged_task",
            Rule.THREAD,
            _THREAD_WHY,
        ),
        (
            "clock clock_gettime clock_getres time gettimeofday timespec_get times getrusage "
            "rdtsc rdtscp readcyclecounter ia32_rdtsc globaltimer cudaEventElapsedTime",
            Rule.CLOCK,
            _CLOCK_WHY,
        ),
        (
            "cudaStreamCreate cudaStreamCreateWithFlags cudaStreamCreateWithPriority "
            "cudaStreamPerThread cudaStreamNonBlocking",
            Rule.STREAM,
            _STREAM_WHY,
        ),
        (
            "cudaStreamBeginCapture cudaStreamBeginCaptureToGraph cudaStreamEndCapture "
            "cudaStreamAddCallback cudaLaunchHostFunc cudaUserObjectCreate",
            Rule.GRAPH,
            _GRAPH_WHY,
        ),
        (
            "cudaStreamSetAttribute cudaStreamAttrValue cudaStreamAttributeAccessPolicyWindow "
            "cudaLaunchAttributeAccessPolicyWindow cudaKernelNodeAttributeAccessPolicyWindow "
            "cudaAccessPolicyWindow cudaAccessPropertyPersisting cudaCtxResetPersistingL2Cache "
            "cudaLimitPersistingL2CacheSize",
            Rule.L2_POLICY,
            _L2_WHY,
        ),
        (
            "cudaMallocManaged cudaMemAdvise cudaMemPrefetchAsync cudaStreamAttachMemAsync "
            "cudaMemRangeGetAttribute cudaMemRangeGetAttributes cudaMemAttachGlobal "
            "cudaMemAttachHost",
            Rule.MANAGED_MEMORY,
            _MANAGED_WHY,
        ),
        (
            "cudaDeviceReset cudaThreadExit cudaSetDevice cudaSetDeviceFlags cudaSetValidDevices "
            "cudaDeviceSetCacheConfig cudaThreadSetCacheConfig cudaDeviceSetSharedMemConfig "
            "cudaThreadSetLimit cudaDeviceSetMemPool cudaProfilerStart cudaProfilerStop "
            "cudaGetDriverEntryPoint cudaGetDriverEntryPointByVersion",
            Rule.DEVICE_CONTROL,
            _DEVICE_WHY,
        ),
        (
            "cudaMemcpyFromSymbol cudaMemcpyFromSymbolAsync cudaGetSymbolAddress",
            Rule.GLOBAL_STATE,
            _READBACK_WHY,
        ),
        ("frame_address return_address extract_return_addr", Rule.HARNESS_SYMBOL, _FRAME_WHY),
    )
    for names, rule, why in groups:
        for name in names.split():
            table[name] = (rule, why)
    return table


_BY_NAME = _name_table()

_BY_PREFIX: tuple[tuple[str, Rule, str], ...] = (
    ("pthread_", Rule.THREAD, _THREAD_WHY),
    ("omp_", Rule.THREAD, _THREAD_WHY),
    ("thrd_", Rule.THREAD, _THREAD_WHY),
    ("cudaGraph", Rule.GRAPH, _GRAPH_WHY),
    ("cudaIpc", Rule.DEVICE_CONTROL, _DEVICE_WHY),
    ("nvrtc", Rule.DEVICE_CONTROL, _DEVICE_WHY),
    *(
        (prefix, Rule.DEVICE_CONTROL, _DEVICE_WHY)
        for prefix in (
            "cuInit",
            "cuCtx",
            "cuModule",
            "cuLaunch",
            "cuMem",
            "cuDevice",
            "cuStream",
            "cuGraph",
            "cuEvent",
            "cuFunc",
            "cuKernel",
            "cuLink",
            "cuLibrary",
            "cuGetProcAddress",
        )
    ),
)

_BY_NAMESPACE: dict[str, tuple[Rule, str]] = {
    "chrono": (Rule.CLOCK, _CLOCK_WHY),
    "this_thread": (Rule.THREAD, _THREAD_WHY),
    "execution": (Rule.THREAD, _THREAD_WHY),
    "omp": (Rule.THREAD, _THREAD_WHY),
    "tbb": (Rule.THREAD, _THREAD_WHY),
    "async": (Rule.THREAD, _THREAD_WHY),
    "filesystem": (Rule.IO, _IO_WHY),
}

_LIBC_PREFIXES = ("builtin_", "libc_", "IO_", "GI_", "isoc99_", "isoc23_")
_LIBC_SUFFIXES = ("_chk", "_unlocked", "64")

_RESERVED_MACRO_NAMES = words(
    # C and C++ keywords and the CUDA vocabulary a macro could quietly change.
    "alignas alignof and asm auto bool break case catch char char8_t char16_t char32_t "
    "class const consteval constexpr constinit const_cast continue decltype default "
    "delete do double dynamic_cast else enum explicit export extern false float for "
    "friend goto if inline int long mutable namespace new noexcept not nullptr operator "
    "or private protected public register reinterpret_cast return short signed sizeof "
    "static static_assert static_cast struct switch template this thread_local throw "
    "true try typedef typeid typename union unsigned using virtual void volatile "
    "wchar_t while defined threadIdx blockIdx blockDim gridDim warpSize std cub thrust "
    "cooperative_groups size_t ptrdiff_t NULL min max abs fabs fabsf sqrt sqrtf exp expf "
    "log logf pow powf fma fmaf isnan isinf isfinite INFINITY NAN FLT_MAX FLT_MIN "
    "FLT_EPSILON DBL_MAX INT_MAX INT_MIN UINT_MAX assert NDEBUG memcpy memset malloc "
    "calloc realloc free float2 float4 int2 int4 dim3 half"
)

# --- Parsing ------------------------------------------------------------------------------

_NAME_NODES = frozenset({"identifier", "type_identifier"})
_SCOPES_WITH_DECLARATIONS = frozenset(
    {"function_definition", "lambda_expression", "for_statement", "for_range_loop"}
)
"""Scopes whose heads declare variables: parameters, a loop's initializer."""
_VARIABLE_DECLARATIONS = frozenset({"declaration", "parameter_declaration"})


def _declares(node: Node) -> bool:
    """``node`` is the name a local declaration or a parameter introduces (``float time``),
    not a function's (``int signal(int)``) and not at namespace scope."""
    child, parent = node, node.parent
    while parent is not None and parent.type in (
        "init_declarator",
        "pointer_declarator",
        "reference_declarator",
        "array_declarator",
        "parenthesized_declarator",
    ):
        if parent.type == "init_declarator" and parent.child_by_field_name("declarator") != child:
            return False
        child, parent = parent, parent.parent
    if parent is None or parent.type not in _VARIABLE_DECLARATIONS:
        return False
    if parent.type == "declaration" and (
        parent.parent is None or parent.parent.type in TRANSPARENT_SCOPES
    ):
        return False
    return child in parent.children_by_field_name("declarator")


_DECLARING = frozenset(
    {
        "declaration",
        "field_declaration",
        "parameter_declaration",
        "optional_parameter_declaration",
        "function_definition",
        "for_range_loop",
    }
)


def _parse(code: bytes) -> Tree:
    return parse_isolated(code)


def _classify(name: str, policy: GatePolicy) -> tuple[Rule, str] | None:
    found = _classify_name(name)
    if found is not None and policy.allow_streams and found[0] is Rule.STREAM:
        return None
    return found


@cache
def _classify_name(name: str) -> tuple[Rule, str] | None:
    """Rule and reason a referenced name falls under, also behind libc/builtin aliases."""
    bare = name.lstrip("_")
    for prefix in _LIBC_PREFIXES:
        if bare.startswith(prefix):
            bare = bare[len(prefix) :].lstrip("_")
    for suffix in _LIBC_SUFFIXES:
        if bare.endswith(suffix) and len(bare) > len(suffix):
            bare = bare[: -len(suffix)]
    for candidate in (name, bare):
        found = _BY_NAME.get(candidate)
        if found is not None:
            return found
        for prefix, rule, why in _BY_PREFIX:
            if candidate.startswith(prefix):
                return rule, why
    return None


def _api_like(name: str) -> bool:
    """Spelled like a CUDA library function (``cudaMalloc``, ``cuLaunchKernel``)."""
    return any(
        name.startswith(prefix) and name[len(prefix) : len(prefix) + 1].isupper()
        for prefix in _API_PREFIXES
    )


def _reserved(name: str) -> bool:
    """Reserved for the implementation: ``__x`` or ``_X``."""
    return name.startswith("__") or (len(name) > 1 and name[0] == "_" and name[1].isupper())


def _is_harness_name(name: str) -> bool:
    return "regrapht" in name.lower() or name == "main"


# --- Declarations -------------------------------------------------------------------------


# --- Signatures ---------------------------------------------------------------------------


@cache
def _task_signature(signature: str, entry: str) -> Signature:
    code = (signature.strip().rstrip(";") + ";").encode()
    for node in _parse(code).root_node.named_children:
        owner = node
        if owner.type == "linkage_specification":
            body = owner.child_by_field_name("body")
            owner = body if body is not None else owner
        if owner.type == "declaration":
            found = signature_of(owner, code)
            if found is not None:
                return found
    raise TaskError(
        f"task signature {signature!r} of entry {entry!r} is not a C/C++ function "
        "declaration; fix the task's `signature`."
    )


@cache
def _reference_names(source: str, entry: str) -> frozenset[str]:
    """Functions and variables the reference defines at namespace scope, less the entry."""
    code = splice_lines(source.encode("utf-8", errors="replace")).code
    names: set[str] = set()
    stack = [_parse(code).root_node]
    while stack:
        node = stack.pop()
        if node.type in ("function_definition", "declaration"):
            for declarator in node.children_by_field_name("declarator"):
                name = declarator_name(declarator, code)
                if name is not None:
                    names.add(name)
        elif node.type in TRANSPARENT_SCOPES or node.type == "template_declaration":
            stack.extend(node.named_children)
    names.discard(entry)
    return frozenset(names)


# --- The walk -----------------------------------------------------------------------------


class _Gate:
    def __init__(self, spliced: Spliced, task: Task, policy: GatePolicy) -> None:
        self.code = spliced.code
        self.joins = spliced.joins
        self.task = task
        self.policy = policy
        self.reference = _reference_names(task.source, task.entry)
        self.violations: list[Violation] = []
        self.defined: set[str] = set()
        self.reference_uses: list[tuple[int, str]] = []
        self.entries: list[Node] = []

    def line(self, node: Node) -> int:
        return node.start_point.row + 1 + bisect.bisect_right(self.joins, node.start_byte)

    def flag(self, line: int, rule: Rule, message: str) -> None:
        self.violations.append(Violation(line, rule, message))

    def text(self, node: Node) -> str:
        return text_in(node, self.code)

    # Names --------------------------------------------------------------------------------

    def name(self, node: Node, line: int) -> None:
        raw = self.text(node)
        name = decode_ucn(raw)
        if name != raw:
            self.flag(line, Rule.PARSE, f"`{raw}`: escapes in identifiers hide names")
        if node.type == "namespace_identifier":
            found = _BY_NAMESPACE.get(name)
            if found is not None:
                self.flag(line, found[0], f"namespace `{name}`: {found[1]}")
            if _is_harness_name(name):
                self.flag(line, Rule.HARNESS_SYMBOL, f"`{name}` belongs to the harness")
            return
        if _is_harness_name(name):
            self.flag(
                line,
                Rule.HARNESS_SYMBOL,
                f"`{name}` belongs to the harness; a candidate may not name or define it",
            )
        elif name in ("_Pragma", "__pragma"):
            self.flag(line, Rule.PRAGMA, "pragma operators are refused; write `#pragma unroll`")
        elif name in ("asm", "__asm", "__asm__"):
            self.flag(line, Rule.INLINE_ASM, "inline assembly is refused")
        found = _classify(name, self.policy)
        if found is not None and not self.local_variable(node, name):
            self.flag(line, found[0], f"`{name}`: {found[1]}")
        if name in self.reference and not self.scoped(node):
            self.reference_uses.append((line, name))

    def local_variable(self, node: Node, name: str) -> bool:
        """``node`` is a variable of a function: a parameter or local named like a refused
        function (``const float* signal``, ``float time``), or a use of one declared in an
        enclosing scope before it. Such a name cannot reach the function it shadows: that
        takes ``::signal`` or ``std::signal``, a qualified name still refused, or a
        declaration of the function itself, still refused."""
        parent = node.parent
        if node.type != "identifier" or (
            parent is not None and parent.type == "qualified_identifier"
        ):
            return False  # ``::clock``, ``std::exit``: the function, whatever is local
        if _declares(node):
            return True
        child, scope = node, node.parent
        while scope is not None and scope.type != "translation_unit":
            if scope.type == "compound_statement":
                earlier = [s for s in scope.named_children if s.end_byte <= child.start_byte]
                if any(name in self.variables(s) for s in earlier):
                    return True
            elif scope.type in _SCOPES_WITH_DECLARATIONS:
                heads = [c for c in scope.children if c.end_byte <= child.start_byte]
                if any(name in self.variables(c) for c in heads):
                    return True
            child, scope = scope, scope.parent
        return False

    def variables(self, node: Node) -> set[str]:
        """The variables ``node`` declares at its own level: a declaration's names, a
        parameter list's, a function declarator's parameters; not functions."""
        if node.type in ("function_declarator", "abstract_function_declarator"):
            node = node.child_by_field_name("parameters") or node
        if node.type == "parameter_list":
            found: set[str] = set()
            for parameter in node.named_children:
                found |= self.variables(parameter)
            return found
        if node.type not in ("declaration", "parameter_declaration"):
            return set()
        names = set()
        for declarator in node.children_by_field_name("declarator"):
            inner: Node | None = declarator
            while inner is not None and inner.type not in ("identifier", "function_declarator"):
                inner = inner_declarator(inner)
            if inner is not None and inner.type == "identifier":
                names.add(self.text(inner))
        return names

    def scoped(self, node: Node) -> bool:
        """Named inside a namespace (``std::max``), so not the reference's global."""
        parent = node.parent
        return (
            parent is not None
            and parent.type == "qualified_identifier"
            and parent.child_by_field_name("scope") is not None
        )

    def keyword(self, node: Node, line: int) -> None:
        word = self.text(node)
        if word == "__managed__":
            self.flag(line, Rule.MANAGED_MEMORY, f"`__managed__`: {_MANAGED_WHY}")
        elif word == "mutable":
            self.flag(line, Rule.GLOBAL_STATE, "`mutable` members let const objects keep state")
        elif word == "thread_local":
            self.flag(line, Rule.GLOBAL_STATE, "`thread_local` variables keep state across calls")

    # Preprocessor -------------------------------------------------------------------------

    def include(self, node: Node) -> None:
        line = self.line(node)
        path = node.child_by_field_name("path")
        if path is None or path.type != "system_lib_string":
            shown = "" if path is None else self.text(path)
            self.flag(
                line,
                Rule.INCLUDE,
                f"#include {shown}: only <...> headers from the allow-list; local or "
                "computed includes reach files outside the candidate",
            )
            return
        header = self.text(path)[1:-1].strip()
        allowed = header in _INCLUDES or (
            header.startswith(_INCLUDE_PREFIXES)
            and not header.startswith(_INCLUDE_DENIED_PREFIXES)
            and ".." not in header
        )
        if not allowed:
            self.flag(
                line,
                Rule.INCLUDE,
                f"#include <{header}> is not on the allow-list (CUDA runtime and math, CUB, "
                "Thrust, cooperative groups, cuBLAS, side-effect-free C/C++ headers)",
            )

    def directive(self, node: Node) -> None:
        line = self.line(node)
        directive_node = node.child_by_field_name("directive")
        directive = "" if directive_node is None else self.text(directive_node)
        argument_node = node.child_by_field_name("argument")
        argument = "" if argument_node is None else self.text(argument_node).strip()
        if directive not in _DIRECTIVES:
            self.flag(line, Rule.DIRECTIVE, f"{directive} is refused")
        elif directive == "#pragma":
            word = argument.split()[0].partition("(")[0] if argument else ""
            if word not in _PRAGMAS:
                self.flag(
                    line,
                    Rule.PRAGMA,
                    f"#pragma {argument}: only #pragma unroll, nounroll and once are allowed",
                )
        else:
            self.macro_name(argument.split()[0] if argument else "", line, "#undef")

    def macro(self, node: Node) -> None:
        line = self.line(node)
        name_node = node.child_by_field_name("name")
        if name_node is not None:
            self.macro_name(self.text(name_node), line, "#define")
        value = node.child_by_field_name("value")
        if value is None:
            return
        body = self.text(value)
        if "##" in body:
            self.flag(line, Rule.MACRO, "token pasting (##) can assemble names the gate cannot see")
        self.scan_fragment(body.encode(), line)

    def macro_name(self, name: str, line: int, directive: str) -> None:
        why: str | None = None
        if name == self.task.entry:
            why = "redefines the entry"
        elif _is_harness_name(name):
            why = "belongs to the harness"
        elif name in self.reference:
            why = "collides with the reference"
        elif _classify(name, self.policy) is not None:
            why = "collides with a system function"
        elif name in _RESERVED_MACRO_NAMES or _api_like(name):
            why = "collides with a keyword, builtin or CUDA/standard-library name"
        elif _reserved(name):
            why = "is reserved for the compiler and libraries"
        if why is not None:
            self.flag(line, Rule.MACRO, f"{directive} {name}: {why}")

    def scan_fragment(self, body: bytes, line: int) -> None:
        """Hold a macro body to the name rules: it is code once expanded."""
        stack = [_parse(body).root_node]
        while stack:
            node = stack.pop()
            if node.type == "gnu_asm_expression":
                self.flag(line, Rule.INLINE_ASM, "inline assembly is refused")
            if node.type in ("string_literal", "raw_string_literal", "char_literal"):
                continue
            if node.child_count == 0:
                word = text_in(node, body)
                if "\\" in word:
                    self.flag(line, Rule.MACRO, "escapes outside literals can hide names")
                elif word.isidentifier() or node.type in _NAME_NODES:
                    self.name_in_fragment(node, body, line)
            stack.extend(node.children)

    def name_in_fragment(self, node: Node, body: bytes, line: int) -> None:
        name = text_in(node, body)
        if _is_harness_name(name):
            self.flag(line, Rule.HARNESS_SYMBOL, f"`{name}` belongs to the harness")
        elif name in ("_Pragma", "__pragma"):
            self.flag(line, Rule.PRAGMA, "pragma operators are refused; write `#pragma unroll`")
        found = _BY_NAMESPACE.get(name) if node.type == "namespace_identifier" else None
        found = found or _classify(name, self.policy)
        if found is not None:
            self.flag(line, found[0], f"`{name}`: {found[1]}")
        if name == "__managed__":
            self.flag(line, Rule.MANAGED_MEMORY, f"`__managed__`: {_MANAGED_WHY}")
        elif name in ("mutable", "thread_local"):
            self.flag(line, Rule.GLOBAL_STATE, f"`{name}` state is refused")
        if name in self.reference:
            self.reference_uses.append((line, name))

    # Code ---------------------------------------------------------------------------------

    def attribute(self, node: Node) -> None:
        line = self.line(node)
        for item in node.named_children:
            for entry in item.named_children if item.type == "argument_list" else [item]:
                target = entry
                if target.type == "attribute":
                    target = target.child_by_field_name("name") or target
                elif target.type == "call_expression":
                    target = target.child_by_field_name("function") or target
                name = self.text(target).strip("_")
                if target.type == "identifier" and name not in _ATTRIBUTES:
                    self.flag(
                        line,
                        Rule.ATTRIBUTE,
                        f"attribute `{name}` is refused (constructors, aliases, sections and "
                        "visibility change what runs and what links)",
                    )

    def launch(self, node: Node) -> None:
        config = node.named_children
        if len(config) >= 4 and not self.policy.allow_streams:
            stream = self.text(config[3]).strip()
            if stream not in _DEFAULT_STREAM:
                self.flag(
                    self.line(node),
                    Rule.STREAM,
                    f"kernel launched on stream `{stream}`: {_STREAM_WHY}",
                )

    def declaration(self, node: Node) -> None:
        declarators = node.children_by_field_name("declarator")
        for declarator in declarators:
            name = declarator_name(declarator, self.code)
            if name is None:
                continue
            prototype = is_prototype(declarator)
            if node.type == "function_definition":
                self.defined.add(name)
                self.interposes(node, name)
                if name == self.task.entry:
                    self.entries.append(node)
            elif node.type in ("declaration", "field_declaration") and not prototype:
                self.variable(node, declarator, name)
            elif not prototype:
                self.defined.add(name)

    def interposes(self, node: Node, name: str) -> None:
        reserved = name in _INTERPOSE_NAMES or _api_like(name) or _reserved(name)
        if reserved and namespace_scope(node):
            self.flag(self.line(node), Rule.INTERPOSE, f"defines `{name}`: {_INTERPOSE_WHY}")

    def operator_definition(self, node: Node) -> None:
        """A global ``operator new``/``delete`` would serve the harness's allocations too."""
        word = " ".join(self.text(node).split())
        owner = node.parent
        while owner is not None and owner.type.endswith("declarator"):
            owner = owner.parent
        if (
            owner is not None
            and owner.type == "function_definition"
            and ("new" in word or "delete" in word)
            and namespace_scope(owner)
        ):
            self.flag(self.line(node), Rule.INTERPOSE, f"defines global `{word}`: {_INTERPOSE_WHY}")

    def variable(self, node: Node, declarator: Node, name: str) -> None:
        specs = specifiers(node, self.code)
        if "extern" not in specs:
            self.defined.add(name)
        if specs & {"__shared__", "__constant__", "__managed__"}:
            return
        line = self.line(declarator)
        at_namespace = node.type == "declaration" and namespace_scope(node)
        if "extern" in specs:
            self.flag(
                line,
                Rule.GLOBAL_STATE,
                f"extern variable `{name}` reaches state outside the candidate",
            )
        elif (at_namespace or "static" in specs) and not immutable(node, declarator, self.code):
            where = "global" if at_namespace else "static"
            self.flag(
                line,
                Rule.GLOBAL_STATE,
                f"mutable {where} `{name}` can carry results from one call to the next; "
                "allocate scratch per call (const globals, __constant__ and __shared__ are "
                "fine)",
            )

    def walk(self, root: Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind in ("identifier", "type_identifier", "namespace_identifier"):
                self.name(node, self.line(node))
            elif kind in ("mutable", "thread_local", "__managed__"):
                self.keyword(node, self.line(node))
            elif kind == "preproc_include":
                self.include(node)
                continue
            elif kind in ("preproc_def", "preproc_function_def"):
                self.macro(node)
                continue
            elif kind == "preproc_call":
                self.directive(node)
                continue
            elif kind in ("attribute_specifier", "attribute_declaration", "ms_declspec_modifier"):
                self.attribute(node)
                continue
            elif kind == "gnu_asm_expression":
                self.flag(self.line(node), Rule.INLINE_ASM, "inline assembly is refused")
            elif kind == "kernel_call_syntax":
                self.launch(node)
            elif kind == "operator_name":
                self.operator_definition(node)
            elif kind in _DECLARING:
                self.declaration(node)
            stack.extend(node.children)

    def parse_error(self, root: Node) -> Node | None:
        """The first syntax error, ignoring execution spaces on lambdas the grammar lacks."""
        stack = [root]
        while stack:
            node = stack.pop()
            if node.is_missing:
                return node
            if node.type == "ERROR":
                tolerated = (
                    node.parent is not None
                    and node.parent.type == "lambda_expression"
                    and set(self.text(node).split()) <= _EXECUTION_SPACE
                )
                if not tolerated:
                    return node
                continue
            stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
        return None

    def finish_references(self) -> None:
        for line, name in self.reference_uses:
            if name not in self.defined:
                self.flag(
                    line,
                    Rule.REFERENCE_SYMBOL,
                    f"`{name}` is the reference's; a candidate must compute the result itself",
                )

    def member_of(self, node: Node) -> str | None:
        """The class a function definition is a member of: the class around it, or the
        ``Owner`` of ``Owner::f`` at namespace scope; ``None`` for a free function."""
        parent = node.parent
        if parent is not None and parent.type == "field_declaration_list":
            spec = parent.parent
            tag = spec.child_by_field_name("name") if spec is not None else None
            return self.text(tag) if tag is not None else ""
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type != "qualified_identifier":
            declarator = inner_declarator(declarator)
        scope = declarator.child_by_field_name("scope") if declarator is not None else None
        return self.text(scope) if scope is not None else None

    def check_member_entry(self) -> None:
        """A member entry: defined once in the task's class, which is at file scope (the
        verifier calls it through a wrapper appended to the candidate's unit)."""
        entry, owner = self.task.entry, self.task.owner
        signature = self.task.signature.strip().rstrip(";")
        node = self.single_entry(
            [node for node in self.entries if self.member_of(node) == owner],
            f"{owner}::{entry}",
            f"keep class `{owner}` at file scope with its member `{signature}`",
        )
        if node is None:
            return
        line = self.line(node)
        inside = node.parent is not None and node.parent.type == "field_declaration_list"
        placed = node.parent.parent if inside and node.parent is not None else node
        if placed is None or placed.parent is None or placed.parent.type != "translation_unit":
            self.flag(
                line,
                Rule.ENTRY,
                f"`{owner}::{entry}` and its class must be at file scope (not in a namespace, "
                "a template or another class)",
            )
        specs = specifiers(node, self.code)
        if "__global__" in specs or ("__device__" in specs and "__host__" not in specs):
            self.flag(line, Rule.ENTRY, f"`{owner}::{entry}` must be a host function")
        self.check_signature(node, line, f"{owner}::{entry}")

    def single_entry(self, entries: list[Node], name: str, missing: str) -> Node | None:
        """The one definition of the entry, or ``None`` after flagging none or several."""
        entries = sorted(entries, key=lambda node: node.start_byte)
        if not entries:
            self.flag(1, Rule.ENTRY, f"no definition of the entry `{name}`: {missing}")
            return None
        if len(entries) > 1:
            self.flag(
                self.line(entries[1]),
                Rule.ENTRY,
                f"the entry `{name}` is defined {len(entries)} times; define it once, "
                "without overloads",
            )
            return None
        return entries[0]

    def check_signature(self, node: Node, line: int, name: str) -> None:
        """The entry's parameters and return type are exactly the task's."""
        entry = self.task.entry
        signature = self.task.signature.strip().rstrip(";")
        got = signature_of(node, self.code)
        if got != _task_signature(signature, entry):
            shown = "?" if got is None else f"{got.returns} {entry}({', '.join(got.params)})"
            self.flag(
                line,
                Rule.ENTRY,
                f"`{name}` has signature `{shown}`; the task requires `{signature}`",
            )

    def check_entry(self) -> None:
        if self.task.owner:
            self.check_member_entry()
            return
        entry = self.task.entry
        signature = self.task.signature.strip().rstrip(";")
        node = self.single_entry(self.entries, entry, f"need `{signature}`")
        if node is None:
            return
        line = self.line(node)
        parent = node.parent
        while parent is not None and parent.type != "translation_unit":
            if parent.type == "linkage_specification":
                self.flag(
                    line,
                    Rule.ENTRY,
                    f"`{entry}` must have C++ linkage: the harness declares `{signature}` "
                    'without extern "C"',
                )
                break
            if parent.type not in TRANSPARENT_SCOPES or parent.type in (
                "namespace_definition",
                "template_declaration",
            ):
                self.flag(
                    line,
                    Rule.ENTRY,
                    f"`{entry}` must be a plain function at global scope (not in a namespace, "
                    "class or template)",
                )
                break
            parent = parent.parent
        specs = specifiers(node, self.code)
        if specs & {"static", "inline", "__forceinline__"}:
            self.flag(line, Rule.ENTRY, f"`{entry}` must have external linkage (no static/inline)")
        if self.task.mode is TaskMode.KERNEL_TO_KERNEL:
            if "__global__" not in specs:
                self.flag(line, Rule.ENTRY, f"`{entry}` must be a __global__ kernel")
        elif "__global__" in specs or ("__device__" in specs and "__host__" not in specs):
            self.flag(line, Rule.ENTRY, f"`{entry}` must be a host function")
        self.check_signature(node, line, entry)


def check(source: str, task: Task, policy: GatePolicy | None = None) -> GateResult:
    """Statically check a candidate against ``task``; every violation found, by line."""
    raw = source.encode("utf-8", errors="replace")
    gate = _Gate(splice_lines(raw), task, policy or GatePolicy())
    for line in trigraph_lines(raw):
        gate.flag(line, Rule.PARSE, "trigraphs are refused (they can splice lines unseen)")
    root = _parse(gate.code).root_node
    error = gate.parse_error(root) if root.has_error else None
    if error is not None:
        gate.flag(gate.line(error), Rule.PARSE, "syntax error: the source does not parse")
    gate.walk(root)
    gate.finish_references()
    if error is None:
        gate.check_entry()
    return GateResult(tuple(sorted(set(gate.violations))))
