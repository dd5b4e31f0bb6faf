"""Stage 3 of the verifier: inspect the candidate's compiled object, not its source text.

The source gate reads text; the object is what runs. A candidate is linked into the
harness's process, so anything in its object that runs outside the call to the entry, or
that replaces a function the harness or the CUDA runtime relies on, defeats every check
made inside that process. From one ``readelf`` and one ``objdump`` of the relocatable
object (``nvcc -c``: host code and the embedded fatbinary) this module refuses:

* code that runs before ``main`` or at exit: static initializers (``.init_array`` entries
  other than nvcc's own fatbinary registration, ``__sti____cudaRegisterAll``, and the
  ``std::ios_base::Init`` initializer that ``<iostream>``, pulled in by Thrust, emits),
  ``.preinit_array``/``.ctors``/``.fini_array``/``.dtors``/``.init``/``.fini``, IFUNC
  resolvers, ``atexit`` registrations outside nvcc's registration, and ``exit`` anywhere
  but the ``exit(1)`` body nvcc gives a ``__device__`` function on the host;
* thread-local storage (``.tdata``/``.tbss``, TLS symbols): per-thread state and
  initializers outside the call;
* definitions of names the C/C++ runtime, the CUDA runtime or driver export (computed once
  per process from the system libraries and ``libcudart_static.a``), of ``cuda*``,
  ``cu[A-Z]*``, ``__cuda*``, ``__nv*``, ``__real_*``, ``__wrap_*`` and the program's own
  start-up names: a definition would replace the library's function for the harness too.
  C++ template and inline instantiations the headers generate are weak or unique
  definitions with mangled names; where one shares a name with a libstdc++ export, both
  come from the same header text, so they are not refused (global ``operator new``/
  ``delete`` are, weak or not);
* imports outside an allow-list: the CUDA runtime less what escapes the timer or the
  device (graphs, host callbacks, launch APIs the harness does not wrap, per-thread
  default-stream variants, device and context control, IPC, peer access, managed memory,
  L2 persistence, profiler control, event timing, symbol read-back), nvcc's registration
  internals, memory and string basics, libm, and the C++ ABI and library (less threads,
  clocks, files and standard streams); anything else (I/O, threads, processes, signals,
  timers, clocks, ``dlopen``, ``syscall``, ``mmap``, the environment, sockets, the
  reference's or harness's code) is refused by name;
* machine code that talks to the kernel or reads the time stamp counter: ``syscall``,
  ``sysenter``, ``int $0x80``, ``rdtsc``, ``rdtscp``, ``rdpmc``.

Candidates must be compiled with :data:`CANDIDATE_DEFINES`: CCCL's headers otherwise emit
NVTX's injection loader (``getenv`` and ``dlopen`` of a path from the environment) into
every object that uses CUB or Thrust, which this check would rightly refuse.

What it cannot see: functions reached through computed addresses (an allowed function's
address plus an offset), reads of the harness's stack or memory through pointers, and
anything done on the device. Those are for the sandbox (system-call filter, namespaces) and
the run's checks.

Nothing here raises for what an object contains: an object the tools cannot read is a
rejection. A missing tool is the installation's fault and raises ``ConfigError``.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from regrapht_core.errors import ConfigError

__all__ = ["CANDIDATE_DEFINES", "LibraryNames", "ObjectTools", "inspect_object", "library_names"]

CANDIDATE_DEFINES = ("CCCL_DISABLE_NVTX", "NVTX_DISABLE")
"""Macros the candidate is compiled with (``Compiler.cuda_object(defines=...)``)."""

_PREFIX = "object check: "
_MAX_FINDINGS = 6
_LIBRARY_DIRS = (
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib/aarch64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/usr/lib",
    "/usr/lib/wsl/lib",
)
_LIBRARIES = ("libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libcuda.so.1")


@dataclass(frozen=True, slots=True)
class ObjectTools:
    """The binutils to read objects with, and where the system's libraries are."""

    readelf: str = "readelf"
    objdump: str = "objdump"
    nm: str = "nm"
    cxxfilt: str = "c++filt"
    cuda_home: Path | None = None
    """The toolkit, for ``libcudart_static.a``; ``None``: ``/usr/local/cuda``."""
    library_dirs: tuple[str, ...] = _LIBRARY_DIRS
    timeout_s: float = 30.0

    def cudart_static(self) -> Path | None:
        home = self.cuda_home or Path("/usr/local/cuda")
        found = sorted(home.glob("lib*/libcudart_static.a")) + sorted(
            home.glob("targets/*/lib/libcudart_static.a")
        )
        return found[0] if found else None

    def system_libraries(self) -> tuple[Path, ...]:
        """The first copy of each runtime library found in ``library_dirs``."""
        found: list[Path] = []
        for name in _LIBRARIES:
            for folder in self.library_dirs:
                path = Path(folder) / name
                if path.exists():
                    found.append(path)
                    break
        return tuple(found)


# --- Running the tools --------------------------------------------------------------------


def _run(argv: Sequence[str], timeout_s: float, stdin: str | None = None) -> str | None:
    """The tool's stdout, or ``None`` if it failed or ran out of time on this input."""
    try:
        done = subprocess.run(
            argv,
            input=stdin,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            check=False,
        )
    except FileNotFoundError as error:
        raise ConfigError(
            f"`{argv[0]}` is not installed; the object check needs binutils "
            "(readelf, objdump, nm, c++filt)"
        ) from error
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


@dataclass(frozen=True, slots=True)
class LibraryNames:
    """Names the runtime libraries define, by the family an import is judged in."""

    every: frozenset[str]
    math: frozenset[str]
    cxx: frozenset[str]
    """libstdc++'s."""
    gcc: frozenset[str]
    """libgcc_s's: the compiler's arithmetic helpers (``__mulsc3``, ``__divti3``)."""


def _defined(tools: ObjectTools, path: Path, *, dynamic: bool) -> set[str]:
    argv = [tools.nm, "--defined-only", *(["-D"] if dynamic else []), str(path)]
    listing = _run(argv, tools.timeout_s) or ""
    names: set[str] = set()
    for line in listing.splitlines():
        parts = line.split()
        kind = parts[-2] if len(parts) >= 3 else ""
        if kind in ("u", "i") or (len(kind) == 1 and kind.isupper() and kind not in "NU"):
            names.add(parts[-1].partition("@")[0])
    return names


@cache
def library_names(tools: ObjectTools) -> LibraryNames:
    """What libc, libm, libstdc++, libgcc_s, libcuda and the static CUDA runtime define;
    read once per process and set of tools (about 0.2 s)."""
    every: set[str] = set()
    math: set[str] = set()
    cxx: set[str] = set()
    gcc: set[str] = set()
    for library in tools.system_libraries():
        names = _defined(tools, library, dynamic=True)
        every |= names
        if library.name.startswith("libm."):
            math |= names
        elif library.name.startswith("libstdc++"):
            cxx |= names
        elif library.name.startswith("libgcc_s"):
            gcc |= names
    cudart = tools.cudart_static()
    if cudart is not None:
        every |= _defined(tools, cudart, dynamic=False)
    return LibraryNames(*map(frozenset, (every, math, cxx, gcc)))


# --- Reading the object -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Section:
    name: str
    kind: str
    size: int
    flags: str


@dataclass(frozen=True, slots=True)
class _Symbol:
    value: int
    size: int
    kind: str
    bind: str
    ndx: str
    name: str

    @property
    def defined(self) -> bool:
        return self.ndx not in ("UND", "ABS")


@dataclass(frozen=True, slots=True)
class _Reloc:
    offset: int
    symbol: int
    addend: int


@dataclass(slots=True)
class _Elf:
    sections: dict[int, _Section] = field(default_factory=dict)
    symbols: dict[int, _Symbol] = field(default_factory=dict)
    relocs: dict[str, list[_Reloc]] = field(default_factory=dict)
    """By the section they apply to (``.rela.init_array`` → ``.init_array``)."""
    unread: int = 0
    """Entries printed in a form this parser does not know: the object is not trusted."""


_SECTION = re.compile(
    r"^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+"
    r"([A-Za-z]*)\s+\d+\s+\d+\s+\d+\s*$"
)
_SYMBOL = re.compile(
    r"^\s*(\d+):\s+([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+"
    r"(?:\[[^\]]*\]\s+)?(\S+)\s*(\S*)\s*$"
)
_ENTRY = {
    "sections": re.compile(r"^\s*\[\s*\d+\]"),
    "symbols": re.compile(r"^\s*\d+:"),
    "relocs": re.compile(r"^[0-9a-f]{8,}\s"),
}
"""How an entry of each table starts, matched or not."""
_RELOC_HEAD = re.compile(r"^Relocation section '([^']+)'")
_RELOC = re.compile(
    r"^([0-9a-f]+)\s+([0-9a-f]+)\s+\S+(?:\s+[0-9a-f]+\s+.*?\s*([+-])\s*([0-9a-f]+))?"
)


def _parse_elf(text: str) -> _Elf:
    elf = _Elf()
    part = ""
    target = ""
    for line in text.splitlines():
        if line.startswith("Section Headers:"):
            part = "sections"
        elif line.startswith("Symbol table"):
            part = "symbols"
        elif head := _RELOC_HEAD.match(line):
            part = "relocs"
            name = head.group(1)
            target = name.removeprefix(".rela").removeprefix(".rel") if name != ".rela" else ""
            elf.relocs.setdefault(target, [])
        elif part == "sections" and (found := _SECTION.match(line)):
            index, name, kind, size, flags = found.groups()
            elf.sections[int(index)] = _Section(name, kind, int(size, 16), flags)
        elif part == "symbols" and (found := _SYMBOL.match(line)):
            index, value, size, kind, bind, _, ndx, name = found.groups()
            elf.symbols[int(index)] = _Symbol(
                int(value, 16), int(size, 0), kind, bind, ndx, name.partition("@")[0]
            )
        elif part == "relocs" and (found := _RELOC.match(line)):
            offset, info, sign, addend = found.groups()
            value = int(addend, 16) if addend else 0
            elf.relocs[target].append(
                _Reloc(int(offset, 16), int(info, 16) >> 32, -value if sign == "-" else value)
            )
        elif part and _ENTRY[part].match(line) and not line.lstrip().startswith("[ 0]"):
            elf.unread += 1
    return elf


@dataclass(slots=True)
class _Block:
    """One symbol's code as objdump prints it: instructions, each with the relocation
    targets that patch it."""

    instructions: list[tuple[str, list[str]]] = field(default_factory=list)


_LABEL = re.compile(r"^([0-9a-f]+) <(.*)>:$")
_INSN = re.compile(r"^\s*[0-9a-f]+:\t(.*)$")
_INSN_RELOC = re.compile(r"^\s*[0-9a-f]+: R_\S+\s+(\S+?)(?:[+-]0x[0-9a-f]+)?$")


def _parse_code(text: str) -> dict[tuple[str, int], _Block]:
    blocks: dict[tuple[str, int], _Block] = {}
    section = ""
    block: _Block | None = None
    for line in text.splitlines():
        if line.startswith("Disassembly of section "):
            section = line.removeprefix("Disassembly of section ").rstrip(":")
        elif label := _LABEL.match(line):
            block = blocks.setdefault((section, int(label.group(1), 16)), _Block())
        elif block is None:
            continue
        elif reloc := _INSN_RELOC.match(line):
            if block.instructions:
                block.instructions[-1][1].append(reloc.group(1))
        elif insn := _INSN.match(line):
            block.instructions.append((insn.group(1).partition("#")[0].strip(), []))
    return blocks


# --- Rules --------------------------------------------------------------------------------

_NVCC_REGISTRATION = "_ZL24__sti____cudaRegisterAllv"
_IOSTREAM_INIT = frozenset(
    {"_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev", "__cxa_atexit", "__dso_handle"}
)
_PREFIXES = frozenset({"notrack", "bnd", "lock", "rep", "repz", "repnz", "data16", "cs", "ds"})
"""Instruction prefixes objdump prints before the mnemonic."""
_CONFINED = frozenset({"atexit", "exit"})
"""Imports nvcc's own code uses, allowed only there (``__cxa_atexit`` registrations made by
function-local statics are allowed anywhere: the harness ends with ``_Exit``, so they never
run)."""

_CONSTRUCTOR_SECTIONS = (".init_array", ".preinit_array", ".ctors")
_EXIT_SECTIONS = (".fini_array", ".dtors")
_LOADER_SECTIONS = frozenset({".init", ".fini"})
_TLS_SECTIONS = (".tdata", ".tbss")

_RESERVED_DEFINITION = re.compile(r"^(cuda|cu[A-Z]|__cuda|__nv|__real_|__wrap_)")
_REPLACEABLE = re.compile(r"^_Z(nw|na|dl|da)")
"""Global ``operator new``/``delete``: replaceable for the whole program."""
_START_UP = frozenset(
    {
        "main",
        "_start",
        "_init",
        "_fini",
        "__dso_handle",
        "_GLOBAL_OFFSET_TABLE_",
        "_DYNAMIC",
        "__bss_start",
        "_edata",
        "_end",
        "__data_start",
        "data_start",
        "_IO_stdin_used",
        "__TMC_END__",
    }
)

_ALLOWED_C = frozenset(
    {
        "memcpy",
        "memmove",
        "memset",
        "memcmp",
        "memchr",
        "strlen",
        "strnlen",
        "strcmp",
        "strncmp",
        "strchr",
        "strrchr",
        "strstr",
        "strerror",
        "snprintf",
        "vsnprintf",
        "malloc",
        "free",
        "calloc",
        "realloc",
        "aligned_alloc",
        "posix_memalign",
        "abort",
        "__assert_fail",
        "__stack_chk_fail",
        "__libc_single_threaded",
        "__errno_location",
        "_GLOBAL_OFFSET_TABLE_",
        "__gxx_personality_v0",
        "_Unwind_Resume",
        "__dso_handle",
        *_CONFINED,
    }
)
_ALLOWED_CUDA_INTERNALS = frozenset(
    {
        "__cudaRegisterFatBinary",
        "__cudaRegisterFatBinaryEnd",
        "__cudaUnregisterFatBinary",
        "__cudaRegisterFunction",
        "__cudaRegisterVar",
        "__cudaRegisterManagedVar",
        "__cudaRegisterHostVar",
        "__cudaRegisterUnifiedTable",
        "__cudaInitModule",
        "__cudaPushCallConfiguration",
        "__cudaPopCallConfiguration",
        "__cudaLaunchKernel",
        "__cudaGetKernel",
    }
)
_WRAPPED_LAUNCHES = frozenset(
    {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel"}
)
_DENIED_CUDA: tuple[tuple[str, str], ...] = (
    ("cudaLaunch", "a launch API the harness does not wrap runs work the timer cannot see"),
    ("cudaGraph", "CUDA graphs run work the timer does not see"),
    ("cudaStreamBeginCapture", "stream capture builds graphs the timer does not see"),
    ("cudaStreamEndCapture", "stream capture builds graphs the timer does not see"),
    ("cudaStreamAddCallback", "host callbacks run work on CPU threads"),
    ("cudaUserObject", "user objects run host code when a graph releases them"),
    ("cudaDeviceReset", "device and context control reaches beyond the call"),
    ("cudaSetDeviceFlags", "device flags change how the harness's waits behave"),
    ("cudaSetValidDevices", "device and context control reaches beyond the call"),
    ("cudaThread", "device and context control reaches beyond the call"),
    ("cudaCtx", "device and context control reaches beyond the call"),
    ("cudaDeviceSet", "device-wide settings outlive the call"),
    ("cudaDeviceGraphMemTrim", "device-wide settings outlive the call"),
    ("cudaDeviceEnablePeerAccess", "peer access reaches other devices"),
    ("cudaDeviceDisablePeerAccess", "peer access reaches other devices"),
    ("cudaIpc", "IPC handles reach other processes"),
    ("cudaProfiler", "profiler control interferes with measurement"),
    ("cudaStreamSetAttribute", "stream attributes (L2 persistence) outlive the call"),
    ("cudaMallocManaged", "managed memory hides transfers from the timer"),
    ("cudaMemAdvise", "managed memory hides transfers from the timer"),
    ("cudaMemPrefetch", "managed memory hides transfers from the timer"),
    ("cudaStreamAttachMemAsync", "managed memory hides transfers from the timer"),
    ("cudaMemRangeGetAttribute", "managed memory hides transfers from the timer"),
    ("cudaEventElapsedTime", "timing is the harness's job"),
    ("cudaGetDriverEntryPoint", "the driver API reaches beyond the runtime's checks"),
    ("cudaGetFuncBySymbol", "the driver API reaches beyond the runtime's checks"),
    ("cudaLibrary", "loading modules at run time hides code from the object check"),
    ("cudaMemcpyFromSymbol", "reading device symbols back carries results across calls"),
    ("cudaGetSymbolAddress", "reading device symbols back carries results across calls"),
    ("cudaImportExternal", "external memory and semaphores reach other processes"),
    ("cudaSignalExternal", "external memory and semaphores reach other processes"),
    ("cudaWaitExternal", "external memory and semaphores reach other processes"),
)
_PER_THREAD = ("_ptsz", "_ptds")
_AROUND_THE_HARNESS = (
    "__cxa_thread_atexit",
    "__cxa_finalize",
    "_Unwind_",
    "__register_frame",
    "__deregister_frame",
    "__emutls",
    "__clear_cache",
    "__enable_execute_stack",
    "__real_",
    "__wrap_",
)
_DENIED_CXX = re.compile(
    r"6thread|6chrono|11this_thread|10filesystem|13__future_base|13random_device|"
    r"_ZSt[45]w?c(out|err|log|in)|_ZSt3cin|13basic_filebuf|14basic_[io]fstream|13basic_fstream"
)
"""libstdc++ families an import may not come from: threads, clocks, files, the standard
streams, the entropy source."""


def _why_cuda(name: str) -> str | None:
    if name.endswith(_PER_THREAD):
        return "per-thread default-stream variants escape the harness's launch accounting"
    if name in _WRAPPED_LAUNCHES:
        return None
    return next((why for prefix, why in _DENIED_CUDA if name.startswith(prefix)), None)


def _why_cxx(name: str, libraries: LibraryNames) -> str | None:
    if _DENIED_CXX.search(name):
        return "threads, clocks, files and standard streams are off limits"
    if name in libraries.cxx:
        return None
    return "it is neither the candidate's own code nor the allowed runtime"


def _unfortified(name: str) -> str:
    """``memcpy`` for ``__memcpy_chk``: with ``_FORTIFY_SOURCE`` (on by default in some
    distributions' compilers) glibc's checked twins replace the allowed basics."""
    match = re.fullmatch(r"__(\w+)_chk", name)
    return match.group(1) if match else name


def _why_import(name: str, libraries: LibraryNames) -> str | None:
    """Why importing ``name`` is refused; ``None`` if it is allowed."""
    if _unfortified(name) in _ALLOWED_C or name in _ALLOWED_CUDA_INTERNALS:
        return None
    if (name.startswith("cuda") and name[4:5].isupper()) or name.startswith("__cuda"):
        return _why_cuda(name) if name.startswith("cuda") else "nvcc's internals are not called"
    if re.match(r"cu[A-Z]", name):
        return "the CUDA driver API reaches beyond the runtime the harness watches"
    if name.startswith(_AROUND_THE_HARNESS):
        return "it reaches around the harness (exit handlers, unwinding, TLS, wrapped names)"
    if name.startswith("__cxa_"):
        return None
    if name.startswith("_Z"):
        return _why_cxx(name, libraries)
    if name in libraries.gcc or (name in libraries.math and not name.startswith("fe")):
        return None
    return (
        "not on the allow-list (CUDA runtime, memory and string basics, math, C++ runtime); "
        "I/O, threads, processes, signals, timers, clocks and the environment are refused"
    )


def _why_definition(symbol: _Symbol, libraries: LibraryNames) -> str | None:
    name = symbol.name
    if _REPLACEABLE.match(name):
        return "a global operator new/delete replaces the harness's allocator"
    if name.startswith("_Z"):
        strong = symbol.bind == "GLOBAL"
        return "it replaces the C++ runtime's" if strong and name in libraries.every else None
    if name in _START_UP or "regrapht" in name.lower():
        return "it belongs to the program's start-up or the harness"
    if _RESERVED_DEFINITION.match(name) or name in libraries.every:
        return (
            "the C library, C++ runtime or CUDA owns that name, and a definition replaces "
            "theirs for the harness too; rename it (or make it static)"
        )
    return None


_BANNED_INSTRUCTIONS = {
    "syscall": "a system call",
    "sysenter": "a system call",
    "rdtsc": "a time stamp counter read",
    "rdtscp": "a time stamp counter read",
    "rdpmc": "a performance counter read",
}


def _tiny_targets(block: _Block | None, most: int) -> set[str] | None:
    """What a short, loop-free function calls or references; ``None`` if ``block`` is not
    one (too long, or a branch that is not to a relocated target)."""
    if block is None or not 0 < len(block.instructions) <= most:
        return None
    for instruction, found in block.instructions:
        words = [w for w in instruction.split() if w not in _PREFIXES]
        if words and words[0].startswith(("j", "call")) and not found:
            return None
    return {t for _, found in block.instructions for t in found}


def _why_instruction(instruction: str) -> str | None:
    tokens = set(re.split(r"[\s,]+", instruction))
    if "int" in tokens and "$0x80" in tokens:
        return "a system call"
    for token in tokens:
        if token in _BANNED_INSTRUCTIONS:
            return _BANNED_INSTRUCTIONS[token]
    return None


class _Inspection:
    def __init__(self, elf: _Elf, code: dict[tuple[str, int], _Block], libraries: LibraryNames):
        self.elf = elf
        self.code = code
        self.libraries = libraries
        self.findings: list[tuple[str, str]] = []
        """(message with ``{}`` for the demangled name, raw name)."""
        self.initializers: list[tuple[str, int]] = []
        """(section, address) of the static initializers allowed to run."""

    def find(self, message: str, name: str = "") -> None:
        self.findings.append((message, name))

    def section_name(self, ndx: str) -> str:
        section = self.elf.sections.get(int(ndx)) if ndx.isdigit() else None
        return section.name if section is not None else ""

    def functions_at(self, section: str, address: int) -> list[_Symbol]:
        return [
            s
            for s in self.elf.symbols.values()
            if s.kind == "FUNC" and s.value == address and self.section_name(s.ndx) == section
        ]

    def sections(self) -> None:
        for section in self.elf.sections.values():
            name = section.name
            if name.startswith(_TLS_SECTIONS) or "T" in section.flags:
                self.find(f"thread-local storage (section {name}) keeps state outside the call")
            elif name.startswith(_EXIT_SECTIONS) or section.kind == "FINI_ARRAY":
                self.find(f"section {name} runs code at exit, after the harness has reported")
            elif name in _LOADER_SECTIONS:
                self.find(f"section {name} runs code outside the call")
            elif name.startswith(_CONSTRUCTOR_SECTIONS) or section.kind.endswith("INIT_ARRAY"):
                self.constructors(name, section)

    def constructors(self, name: str, section: _Section) -> None:
        relocs = self.elf.relocs.get(name, [])
        if name != ".init_array" or len(relocs) * 8 != section.size:
            self.find(f"section {name} runs code before main")
            return
        allowed = self.initializers
        for reloc in relocs:
            symbol = self.elf.symbols.get(reloc.symbol)
            if symbol is None:
                self.find("an unreadable static initializer runs code before main")
                continue
            base = symbol.value if symbol.kind != "SECTION" else 0
            place = (self.section_name(symbol.ndx), base + reloc.addend)
            functions = self.functions_at(*place)
            names = {f.name for f in functions}
            nvcc = _NVCC_REGISTRATION in names and place not in allowed
            if nvcc or self.iostream_init(place):
                allowed.append(place)
            else:
                shown = functions[0].name if functions else ""
                self.find(
                    "{} runs before main (a static initializer: a global with a constructor "
                    "or a non-constant initializer); compute everything inside the entry",
                    shown or "a static initializer",
                )

    def iostream_init(self, place: tuple[str, int]) -> bool:
        """The initializer ``<iostream>`` emits: ``ios_base::Init`` constructed, its
        destructor registered."""
        targets = _tiny_targets(self.code.get(place), 12)
        return (
            targets is not None
            and "_ZNSt8ios_base4InitC1Ev" in targets
            and all(t in _IOSTREAM_INIT or t.startswith(".bss") for t in targets)
        )

    def device_stub(self, place: tuple[str, int]) -> bool:
        """The host body nvcc gives a ``__device__`` function: ``exit(1)``, nothing else
        (which, written by hand, is a crash, not a way to end the run early)."""
        block = self.code.get(place)
        if _tiny_targets(block, 8) != {"exit"} or block is None:
            return False
        constants = {
            value
            for instruction, _ in block.instructions
            if not (instruction.startswith(("sub", "add")) and instruction.endswith("%rsp"))
            for value in re.findall(r"\$[-0-9a-fx]+", instruction)
        }
        return constants == {"$0x1"}

    def span_of(self, section: str, offset: int) -> tuple[str, int] | None:
        """(section, start) of the function whose code holds ``offset``."""
        for symbol in self.elf.symbols.values():
            if (
                symbol.kind == "FUNC"
                and symbol.value <= offset < symbol.value + max(symbol.size, 1)
                and self.section_name(symbol.ndx) == section
            ):
                return section, symbol.value
        return None

    def symbols(self) -> None:
        for symbol in self.elf.symbols.values():
            if symbol.kind in ("SECTION", "FILE") or not symbol.name:
                continue
            if symbol.kind == "TLS":
                self.find("{} is thread-local: per-thread state outlives the call", symbol.name)
            elif symbol.kind in ("IFUNC", "GNU_IFUNC"):
                self.find("{} is an indirect function: its resolver runs at load", symbol.name)
            elif symbol.defined and symbol.bind in ("GLOBAL", "WEAK", "UNIQUE"):
                why = _why_definition(symbol, self.libraries)
                if why is not None:
                    self.find(f"defines {{}}: {why}", symbol.name)
            elif symbol.ndx == "UND":
                why = _why_import(symbol.name, self.libraries)
                if why is not None:
                    self.find(f"calls {{}}: {why}", symbol.name)

    def confined(self) -> None:
        """``atexit`` is nvcc's, from its registration; ``exit`` is the body nvcc gives a
        ``__device__`` function on the host. Used anywhere else, they run work after the
        harness has reported, or end the process under it."""
        for target, relocs in self.elf.relocs.items():
            for reloc in relocs:
                symbol = self.elf.symbols.get(reloc.symbol)
                if symbol is None or symbol.name not in _CONFINED:
                    continue
                place = self.span_of(target, reloc.offset)
                if symbol.name == "atexit" and place not in self.initializers:
                    self.find(
                        "registers work with {} outside nvcc's registration: it would run "
                        "after the harness has reported",
                        symbol.name,
                    )
                elif symbol.name == "exit" and (place is None or not self.device_stub(place)):
                    self.find("calls {}: ending the process is the harness's job", symbol.name)

    def instructions(self) -> None:
        for (section, _), block in self.code.items():
            for instruction, _found in block.instructions:
                why = _why_instruction(instruction)
                if why is not None:
                    self.find(
                        f"instruction `{instruction}` in {section} is {why}; system calls "
                        "and timing are the harness's, a candidate only computes"
                    )
                    return

    def entry(self, entry: str) -> None:
        mangled = f"_Z{len(entry)}{entry}"
        if not any(
            s.defined and s.kind == "FUNC" and s.bind == "GLOBAL" and s.name.startswith(mangled)
            for s in self.elf.symbols.values()
        ):
            self.find(f"the entry `{entry}` is not defined as a global function in the object")


def _demangle(tools: ObjectTools, names: Iterable[str]) -> dict[str, str]:
    wanted = sorted({n for n in names if n.startswith("_Z")})
    if not wanted:
        return {}
    shown = _run([tools.cxxfilt], tools.timeout_s, stdin="\n".join(wanted) + "\n")
    lines = (shown or "").splitlines()
    return dict(zip(wanted, lines, strict=False)) if len(lines) == len(wanted) else {}


def inspect_object(path: Path, *, entry: str, tools: ObjectTools = ObjectTools()) -> str | None:
    """Why the object at ``path`` must not be linked (lines starting "object check: "),
    or ``None`` if it passes. ``entry`` is the task's host entry point."""
    elf_text = _run([tools.readelf, "-W", "-S", "-s", "-r", str(path)], tools.timeout_s)
    code_text = _run([tools.objdump, "-d", "-r", "--no-show-raw-insn", str(path)], tools.timeout_s)
    if not elf_text or code_text is None:
        return f"{_PREFIX}the compiled object could not be read, so it cannot be trusted"
    elf = _parse_elf(elf_text)
    if not elf.sections or not elf.symbols or elf.unread:
        return f"{_PREFIX}the compiled object could not be read, so it cannot be trusted"
    inspection = _Inspection(elf, _parse_code(code_text), library_names(tools))
    inspection.sections()
    inspection.confined()
    inspection.symbols()
    inspection.instructions()
    inspection.entry(entry)
    if not inspection.findings:
        return None
    unique = list(dict.fromkeys(inspection.findings))
    names = _demangle(tools, (name for _, name in unique[:_MAX_FINDINGS]))
    lines = [_PREFIX + message.format(f"`{names.get(name, name)}`") for message, name in unique][
        :_MAX_FINDINGS
    ]
    if len(unique) > _MAX_FINDINGS:
        lines.append(f"... and {len(unique) - _MAX_FINDINGS} more")
    return "\n".join(lines)
