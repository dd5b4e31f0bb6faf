"""Generate the C++ harness that runs a task's entry function under the verifier's control.

The harness is its own translation unit: the candidate is compiled separately and linked
in, never ``#include``d, so it cannot ``#define`` the checker's names or see its code. The
harness never sees expected outputs: it writes what the entry produced, and the comparison
happens in Python, on the verifier's side of the process boundary.

Two builds of one source (chosen by a macro), both driven by the same line protocol
(:mod:`regrapht_core.verify.driver`): ``load`` a case's files, ``change`` elements to make
this call's variant of the inputs, ``call`` (outputs poisoned first: all-ones bytes, a NaN,
for floats, 0xDEADBEEF for integers; in-place arguments restored; the device's L2
overwritten on request), ``dump`` the outputs and say whether an input changed, ``quit``.
Outputs go into a shared memory window the verifier created and passed as a descriptor
(``serve IN OUT WINDOW``), one after another at 64-byte boundaries, and ``dump`` answers
with their byte counts; the window is the candidate's own, made for its session alone.

* ``candidate`` (nvcc, linked with the candidate): the process the candidate runs in, for
  its checks and its timing alike. Before reading the first command it locks itself down
  (:mod:`regrapht_core.verify.lockdown`). Every call is timed three ways at once: the host
  clock and device-wide events around the call with a device-wide sync before the stop,
  and events around each of the candidate's launches (linker ``--wrap`` of every launch
  API) for kernel-only time; the process's CPU time over the call is reported too.
* ``reference`` (g++, linked with the task's own source): the same protocol, host only, so
  expected outputs and the baseline's time come from a process the candidate never ran in.

Candidate code runs only inside ``call``: the object has no constructors (checked on the
object), the harness answers each command before the verifier sends the next (which it
decides only after reading the answer), and it ends with ``_Exit``, so no destructor or
``atexit`` handler of the candidate ever runs. Managed memory is refused at link level;
``cudaMalloc`` and the stream-ordered ``cudaMallocAsync``/``cudaMallocFromPoolAsync`` are
wrapped so every allocation starts poisoned.
"""

from __future__ import annotations

import re
from enum import StrEnum

from regrapht_core.contracts.task import ArgSpec, ParamKind, Record, Role, Task
from regrapht_core.tasks.dtypes import (
    c_type_name,
    cxx_spelling,
    layout_asserts,
    leaf_kinds,
    numpy_dtype,
    vector_element,
)
from regrapht_core.tasks.signature import entry_symbol, member_declaration, member_wrapper
from regrapht_core.verify.lockdown import LOCKDOWN_CXX

__all__ = [
    "LINK_WRAPS",
    "RUNTIME_WRAPS",
    "HarnessKind",
    "entry_symbol",
    "entry_unit",
    "harness_source",
]

RUNTIME_WRAPS: dict[str, tuple[str, str]] = {
    "cudaFree": ("void* p", "p"),
    "cudaMallocHost": ("void** p, size_t size", "p, size"),
    "cudaHostAlloc": ("void** p, size_t size, unsigned int flags", "p, size, flags"),
    "cudaFreeHost": ("void* p", "p"),
    "cudaMallocPitch": (
        "void** p, size_t* pitch, size_t width, size_t height",
        "p, pitch, width, height",
    ),
    "cudaFreeAsync": ("void* p, cudaStream_t s", "p, s"),
    "cudaHostRegister": ("void* p, size_t size, unsigned int flags", "p, size, flags"),
    "cudaHostUnregister": ("void* p", "p"),
    "cudaMemcpy": (
        "void* dst, const void* src, size_t n, cudaMemcpyKind kind",
        "dst, src, n, kind",
    ),
    "cudaMemcpyAsync": (
        "void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t s",
        "dst, src, n, kind, s",
    ),
    "cudaMemcpy2D": (
        "void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h, cudaMemcpyKind k",
        "dst, dp, src, sp, w, h, k",
    ),
    "cudaMemcpy2DAsync": (
        "void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h, cudaMemcpyKind k,"
        " cudaStream_t s",
        "dst, dp, src, sp, w, h, k, s",
    ),
    "cudaMemcpyToSymbol": (
        "const void* sym, const void* src, size_t n, size_t offset, cudaMemcpyKind kind",
        "sym, src, n, offset, kind",
    ),
    "cudaMemcpyFromSymbol": (
        "void* dst, const void* sym, size_t n, size_t offset, cudaMemcpyKind kind",
        "dst, sym, n, offset, kind",
    ),
    "cudaMemset": ("void* p, int value, size_t n", "p, value, n"),
    "cudaMemsetAsync": ("void* p, int value, size_t n, cudaStream_t s", "p, value, n, s"),
    "cudaDeviceSynchronize": ("void", ""),
    "cudaStreamSynchronize": ("cudaStream_t s", "s"),
    "cudaEventSynchronize": ("cudaEvent_t e", "e"),
    "cudaStreamCreate": ("cudaStream_t* s", "s"),
    "cudaStreamCreateWithFlags": ("cudaStream_t* s, unsigned int flags", "s, flags"),
    "cudaStreamDestroy": ("cudaStream_t s", "s"),
    "cudaGetDeviceProperties": ("cudaDeviceProp* prop, int device", "prop, device"),
    "cudaDeviceGetAttribute": (
        "int* value, cudaDeviceAttr attr, int device",
        "value, attr, device",
    ),
    "cudaGetDevice": ("int* device", "device"),
    "cudaDeviceGetDefaultMemPool": ("cudaMemPool_t* pool, int device", "pool, device"),
    "cudaMemPoolSetAttribute": (
        "cudaMemPool_t pool, cudaMemPoolAttr attr, void* value",
        "pool, attr, value",
    ),
    "cudaMemPoolGetAttribute": (
        "cudaMemPool_t pool, cudaMemPoolAttr attr, void* value",
        "pool, attr, value",
    ),
}
"""The runtime calls whose time is not the call's own host work (name: parameters,
arguments): allocation, copies, synchronization and device queries. In kernel-only timing
the call's host time outside them and outside the launches is added to its kernels' time,
so work left in a host loop is not free; a runtime call missing here only counts against
the candidate."""

LINK_WRAPS = (
    "cudaMalloc",
    "cudaMallocAsync",
    "cudaMallocFromPoolAsync",
    "cudaMallocManaged",
    "__cudaRegisterManagedVar",
    "__cudaLaunchKernel",
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cudaLaunchCooperativeKernel",
    *RUNTIME_WRAPS,
)
"""Symbols the candidate's calls are redirected from (``-Wl,--wrap=``) into the harness."""


class HarnessKind(StrEnum):
    CANDIDATE = "candidate"
    REFERENCE = "reference"


def _spell(ctype: str, records: tuple[Record, ...]) -> str:
    """``ctype`` as the harness writes it: a record as ``::Name``, the user's type at file
    scope, never a harness type of the same name (``Buffer``, ``Change``, ``Args``)."""
    text = cxx_spelling(ctype)
    for record in records:
        text = re.sub(rf"(?<![\w:])({re.escape(record.name)})\b", r" ::\1", text)
    return text  # `` ::Name`` keeps ``<::`` from reading as a digraph in ``Buffer< ::Name>``


def _ctype(arg: ArgSpec, task: Task) -> str:
    return _spell(arg.ctype, task.records)


def _array(arg: ArgSpec) -> bool:
    return arg.kind is not ParamKind.SCALAR


def _stored(arg: ArgSpec) -> bool:
    """Has bytes the harness restores, poisons, changes or dumps: every pointer, vector
    and array, and a ``T&`` scalar the entry writes."""
    return _array(arg) or arg.role is not Role.IN


def _guarded(arg: ArgSpec) -> bool:
    """Elements in a :cpp:`Buffer` between guard bytes: a pointer's, a span's."""
    return arg.kind in (ParamKind.POINTER, ParamKind.SPAN)


def _bools(arg: ArgSpec) -> bool:
    """A ``std::vector<bool>``: no ``data()``; its bytes live in a mirror (``m<index>``),
    one per element, copied in before each call and out after it."""
    return arg.kind is ParamKind.VECTOR and c_type_name(arg.ctype) == "bool"


def _data(index: int, arg: ArgSpec, task: Task) -> str:
    """The argument's elements as bytes: pointer and byte count."""
    if _guarded(arg):
        return f"A.a{index}.data(), A.a{index}.bytes()"
    if _bools(arg):
        return f"A.m{index}.data(), A.m{index}.size()"
    if arg.kind is ParamKind.SCALAR:
        return f"&A.a{index}, sizeof(A.a{index})"
    if arg.kind is ParamKind.ARRAY:
        return f"A.a{index}.data(), sizeof(A.a{index})"
    return f"A.a{index}.data(), A.a{index}.size() * sizeof({_ctype(arg, task)})"


def _argument(index: int, arg: ArgSpec, task: Task) -> str:
    """What the call passes: a pointer's data, a view of a span's, the object otherwise."""
    if arg.kind is ParamKind.POINTER:
        return f"A.a{index}.data()"
    if arg.kind is ParamKind.SPAN:
        return f"std::span<{_ctype(arg, task)}>(A.a{index}.data(), A.a{index}.count)"
    return f"A.a{index}"


def _members(task: Task) -> str:
    lines = []
    for index, arg in enumerate(task.args):
        if _guarded(arg):
            lines.append(f"  Buffer<{_ctype(arg, task)}> a{index};")
        elif _bools(arg):
            lines.append(f"  std::vector<bool> a{index};")
            lines.append(f"  Bytes m{index};")
        elif arg.kind is ParamKind.VECTOR:
            lines.append(f"  std::vector<{_ctype(arg, task)}> a{index};")
        elif arg.kind is ParamKind.ARRAY:
            lines.append(f"  std::array<{_ctype(arg, task)}, {arg.length}> a{index}{{}};")
        else:
            lines.append(f"  {_ctype(arg, task)} a{index}{{}};")
    if task.returns != "void":
        lines.append(f"  {_spell(task.returns, task.records)} ret{{}};")
    return "\n".join(lines)


def _load(task: Task) -> str:
    """Each argument from its file (an output's only sized by it); inputs keep a pristine
    copy to restore and compare."""
    lines = []
    for index, arg in enumerate(task.args):
        read = f'read_file(dir + "/a{index}.bin")'
        if arg.kind is ParamKind.SCALAR and arg.role is Role.IN:
            lines.append(f"  A.a{index} = as_scalar<{_ctype(arg, task)}>({read});")
            continue
        if _guarded(arg) and arg.role is Role.OUT:
            # Poisoned before every call: only its size matters, not the file's zeros.
            lines.append(f'  A.a{index}.size_to(file_size(dir + "/a{index}.bin"));')
            continue
        lines.append(f"  {{ Bytes b = {read};")
        if _guarded(arg):
            lines.append(f"    A.a{index}.load(b);")
        elif arg.kind is ParamKind.SCALAR:
            lines.append(f"    A.a{index} = as_scalar<{_ctype(arg, task)}>(b);")
        elif _bools(arg):
            lines.append(f"    A.m{index} = b;")
            lines.append(f"    g_count[{index}] = b.size();")
        elif arg.kind is ParamKind.ARRAY:
            lines.append(f"    load_array(A.a{index}, b);")
        else:
            lines.append(f"    A.a{index} = as_vector<{_ctype(arg, task)}>(b);")
            lines.append(f"    g_count[{index}] = A.a{index}.size();")
        if arg.role is not Role.OUT:
            lines.append(f"    g_orig[{index}] = std::move(b);")
        lines.append("  }")
    return "\n".join(lines)


def _restore(task: Task) -> str:
    """In-place arguments back to their loaded values; vectors the entry may resize back
    to their loaded size (so a function that appends starts from the same vector)."""
    lines = []
    for index, arg in enumerate(task.args):
        if arg.kind is ParamKind.VECTOR and arg.role is not Role.IN:
            target = f"A.m{index}" if _bools(arg) else f"A.a{index}"
            lines.append(f"  {target}.resize(g_count[{index}]);")
        if _stored(arg) and arg.role is Role.INOUT:
            lines.append(
                f"  std::memcpy(arg_bytes({index}), g_orig[{index}].data(), arg_size({index}));"
            )
    return "\n".join(lines)


def _poison(task: Task) -> str:
    lines = []
    for index, arg in enumerate(task.args):
        if _stored(arg) and arg.role is Role.OUT:
            dtype = numpy_dtype(arg.ctype, records=task.records)
            kind = "poison_float" if "f" in leaf_kinds(dtype) else "poison_int"
            lines.append(f"  {kind}(arg_bytes({index}), arg_size({index}));")
    return "\n".join(lines)


def _bools_in(task: Task) -> str:
    """Before a call: each ``std::vector<bool>`` built from its mirror, element by element."""
    return "\n".join(
        f"  A.a{index}.assign(A.m{index}.begin(), A.m{index}.end());"
        for index, arg in enumerate(task.args)
        if _bools(arg)
    )


def _bools_out(task: Task) -> str:
    """After a call: each ``std::vector<bool>``'s elements back into its mirror."""
    return "\n".join(
        f"  A.m{index}.assign(A.a{index}.begin(), A.a{index}.end());"
        for index, arg in enumerate(task.args)
        if _bools(arg)
    )


def _compare_inputs(task: Task) -> str:
    lines = []
    for index, arg in enumerate(task.args):
        if _array(arg) and arg.role is Role.IN:
            differs = f"std::memcmp(arg_bytes({index}), g_orig[{index}].data(), arg_size({index}))"
            lines.append(f"  if (arg_size({index}) && {differs} != 0) modified = {index};")
    return "\n".join(lines)


def _call(task: Task) -> str:
    parts = [_argument(index, arg, task) for index, arg in enumerate(task.args)]
    store = "A.ret = " if task.returns != "void" else ""
    return f"  {store}{entry_symbol(task)}({', '.join(parts)});"


def entry_unit(task: Task, source: str) -> str:
    """The unit compiled and linked with the harness: ``source`` (the reference's, or a
    candidate's) as it is, and for a member entry the free wrapper the harness calls
    (:func:`~regrapht_core.tasks.signature.member_wrapper`) appended after it.

    The wrapper makes a fresh object on every call (so a method that changes members starts
    each call alike) inside the unit that defines the class; the harness never sees the
    class, so the candidate's and the reference's classes live in their own processes and
    need not match beyond the entry's signature. The wrapper's name contains ``regrapht``,
    which the gate refuses in a candidate's own code, so a candidate cannot define it.
    """
    wrapper = member_wrapper(task)
    return f"{source.rstrip()}\n\n{wrapper}" if wrapper else source


def _signature(task: Task) -> str:
    """The declaration of what the harness calls: the entry, or a member entry's wrapper."""
    if task.owner:
        return member_declaration(task)
    return (task.declaration or task.signature).strip().rstrip(";")


def _write(task: Task) -> str:
    lines = []
    for index, arg in enumerate(task.args):
        if _stored(arg) and arg.role is not Role.IN:
            lines.append(f"  write_out({_data(index, arg, task)});")
    element = vector_element(task.returns)
    if element is not None and c_type_name(element) == "bool":
        lines.append("  { Bytes b(A.ret.begin(), A.ret.end()); write_out(b.data(), b.size()); }")
    elif element is not None:
        lines.append(
            f"  write_out(A.ret.data(), A.ret.size() * sizeof({_spell(element, task.records)}));"
        )
    elif task.returns != "void":
        lines.append("  write_out(&A.ret, sizeof(A.ret));")
    return "\n".join(lines)


def _guards(task: Task) -> str:
    lines = []
    for index, arg in enumerate(task.args):
        if _guarded(arg):
            lines.append(
                f"  if (!A.a{index}.guards_intact()) fail(EXIT_OOB, "
                f"\"wrote outside the %llu elements of argument '{arg.name}'\", A.a{index}.count);"
            )
    return "\n".join(lines)


def _switch(task: Task, value: str) -> str:
    lines = []
    for index, arg in enumerate(task.args):
        if _stored(arg):
            data, size = _data(index, arg, task).split(", ", 1)
            chosen = f"reinterpret_cast<unsigned char*>({data})" if value == "data" else size
            lines.append(f"    case {index}: return {chosen};")
    return "\n".join(lines)


def _prelude(task: Task) -> str:
    """What the entry's declaration needs: the records it names (plain, as their members
    are laid out) and ``static_assert``s that the compiler lays them out as the task does."""
    lines = [_record_declaration(record) for record in task.records]
    ctypes = [a.ctype for a in task.args] + [task.returns]
    lines += layout_asserts(ctypes, task.records, tag="layout")
    return "\n".join(lines)


def _record_declaration(record: Record) -> str:
    members = "".join(
        f" {cxx_spelling(f.ctype)} {f.name}{f'[{f.count}]' if f.count != 1 else ''};"
        for f in record.fields
    )
    if record.anonymous:
        return f"typedef struct {{{members} }} {record.name};"
    return f"struct {record.name} {{{members} }};"


def _runtime_wraps() -> str:
    return "\n".join(
        f'extern "C" cudaError_t __real_{name}({params});\n'
        f'extern "C" cudaError_t __wrap_{name}({params}) {{\n'
        f"  return runtime_call([&] {{ return __real_{name}({args}); }});\n}}"
        for name, (params, args) in RUNTIME_WRAPS.items()
    )


def harness_source(task: Task, kind: HarnessKind) -> str:
    """The harness for ``task``; ``kind`` selects the build (see the module docstring)."""
    fills = {
        "@KIND@": kind.upper(),
        "@PRELUDE@": _prelude(task),
        "@SIGNATURE@": _signature(task),
        "@MEMBERS@": _members(task),
        "@NARGS@": str(len(task.args)),
        "@INPUTS@": ", ".join(
            "true" if _array(arg) and arg.role is Role.IN else "false" for arg in task.args
        ),
        "@LOAD@": _load(task),
        "@RESTORE@": _restore(task),
        "@POISON@": _poison(task),
        "@BOOLS_IN@": _bools_in(task),
        "@BOOLS_OUT@": _bools_out(task),
        "@COMPARE_INPUTS@": _compare_inputs(task),
        "@CALL@": _call(task),
        "@WRITE@": _write(task),
        "@GUARDS@": _guards(task),
        "@ARG_BYTES@": _switch(task, "data"),
        "@ARG_SIZE@": _switch(task, "size"),
        "@LOCKDOWN@": LOCKDOWN_CXX if kind is HarnessKind.CANDIDATE else "",
        "@RUNTIME_WRAPS@": _runtime_wraps(),
    }
    body = _TEMPLATE
    for key, value in fills.items():
        body = body.replace(key, value)
    return f"// Generated by regrapht_core.verify.harness for task {task.name!r}.\n{body}"


_TEMPLATE = r"""
#define REGRAPHT_@KIND@ 1
#include <algorithm>
#include <array>
#include <chrono>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>
#include <vector>
#if __cplusplus >= 202002L
#include <span>
#endif
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(REGRAPHT_CANDIDATE)
#include <cuda_runtime.h>
#endif

@PRELUDE@

@SIGNATURE@;

namespace {

constexpr int EXIT_CUDA = 2;
constexpr int EXIT_MANAGED = 3;
constexpr int EXIT_OOB = 4;
constexpr int EXIT_IO = 5;
constexpr int EXIT_PROTOCOL = 7;
constexpr size_t kGuard = 256;
constexpr unsigned char kGuardByte = 0xA5;
using Bytes = std::vector<unsigned char>;

[[noreturn]] void fail(int code, const char* format, unsigned long long n = 0) {
  std::fprintf(stderr, format, n);
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
  std::_Exit(code);
}

size_t file_size(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || st.st_size < 0)
    fail(EXIT_IO, "harness: cannot open an input file");
  return static_cast<size_t>(st.st_size);
}

Bytes read_file(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail(EXIT_IO, "harness: cannot open an input file");
  Bytes data;
  long size = -1;
  if (std::fseek(f, 0, SEEK_END) == 0) size = std::ftell(f);
  if (size < 0 || std::fseek(f, 0, SEEK_SET) != 0) fail(EXIT_IO, "harness: cannot size a file");
  data.resize(static_cast<size_t>(size));
  if (size && std::fread(data.data(), 1, data.size(), f) != data.size())
    fail(EXIT_IO, "harness: cannot read an input file");
  std::fclose(f);
  return data;
}

// The output window: shared memory the verifier reads a dump's outputs from. Files cost a
// page-cache allocation and, at tens of megabytes, writeback throttling on every dump.
constexpr size_t kWindowAlign = 64;
unsigned char* g_window = nullptr;
size_t g_window_bytes = 0;
size_t g_window_used = 0;
std::string g_dumped;  // " N0 N1 ...": this dump's byte counts, in argument order

void map_window(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size <= 0) fail(EXIT_PROTOCOL, "harness: bad output window");
  void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED,
                 fd, 0);
  if (p == MAP_FAILED) fail(EXIT_IO, "harness: cannot map the output window");
  close(fd);
  g_window = static_cast<unsigned char*>(p);
  g_window_bytes = static_cast<size_t>(st.st_size);
}

void write_out(const void* data, size_t n) {
  if (!g_window) fail(EXIT_PROTOCOL, "harness: dump without an output window");
  if (n > g_window_bytes - g_window_used)
    fail(EXIT_IO, "harness: the outputs are larger than the task's (%llu bytes)",
         static_cast<unsigned long long>(n));
  if (n) std::memcpy(g_window + g_window_used, data, n);
  const size_t padded = (n + kWindowAlign - 1) / kWindowAlign * kWindowAlign;
  g_window_used = std::min(g_window_bytes, g_window_used + padded);
  g_dumped += " " + std::to_string(n);
}

[[maybe_unused]] void poison_float(void* p, size_t n) { std::memset(p, 0xFF, n); }

// A word at a time (the compiler vectorizes it): a byte loop took ~50 ms per 64 MiB output.
[[maybe_unused]] void poison_int(void* p, size_t n) {
  static const unsigned char pattern[4] = {0xEF, 0xBE, 0xAD, 0xDE};
  unsigned char* b = static_cast<unsigned char*>(p);
  uint32_t word;
  std::memcpy(&word, pattern, sizeof word);
  const size_t words = n / sizeof word;
  for (size_t i = 0; i < words; ++i) std::memcpy(b + i * sizeof word, &word, sizeof word);
  for (size_t i = words * sizeof word; i < n; ++i) b[i] = pattern[i % 4];
}

template <typename T>
struct Buffer {
  unsigned char* raw = nullptr;
  size_t count = 0;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { std::free(raw); }
  T* data() { return reinterpret_cast<T*>(raw + kGuard); }
  size_t bytes() const { return count * sizeof(T); }
  size_t total() const { return (bytes() + 2 * kGuard + kGuard - 1) / kGuard * kGuard; }
  void size_to(size_t n) {
    if (n % sizeof(T))
      fail(EXIT_IO, "harness: input file size is not a whole number of elements");
    if (raw && n / sizeof(T) == count) return;
    std::free(raw);
    count = n / sizeof(T);
    raw = static_cast<unsigned char*>(std::aligned_alloc(kGuard, total()));
    if (!raw) fail(EXIT_IO, "harness: out of host memory");
    std::memset(raw, kGuardByte, kGuard);
    std::memset(raw + kGuard + bytes(), kGuardByte, total() - kGuard - bytes());
  }
  void load(const Bytes& src) {
    size_to(src.size());
    if (count) std::memcpy(data(), src.data(), bytes());
  }
  bool guards_intact() const {
    for (size_t i = 0; i < kGuard; ++i) if (raw[i] != kGuardByte) return false;
    for (size_t i = kGuard + bytes(); i < total(); ++i) if (raw[i] != kGuardByte) return false;
    return true;
  }
};

template <typename T>
std::vector<T> as_vector(const Bytes& src) {
  std::vector<T> out(src.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), src.data(), out.size() * sizeof(T));
  return out;
}

template <typename T, size_t N>
void load_array(std::array<T, N>& out, const Bytes& src) {
  if (src.size() != sizeof(out)) fail(EXIT_IO, "harness: a std::array file has the wrong size");
  std::memcpy(out.data(), src.data(), sizeof(out));
}

template <typename T>
T as_scalar(const Bytes& src) {
  T value{};
  if (src.size() != sizeof(T)) fail(EXIT_IO, "harness: a scalar file has the wrong size");
  std::memcpy(&value, src.data(), sizeof(T));
  return value;
}

// One changed element of an input: argument, element index, the element's new bytes.
struct Change {
  int arg;
  size_t index;
  Bytes value;
};

struct Args {
@MEMBERS@
};

// The arguments as loaded (pristine copies of every non-scalar input) and the changes that
// make this call's variant of them.
Args A;
std::vector<Bytes> g_orig;
std::vector<size_t> g_count;  // each vector's loaded element count
std::vector<Change> g_changes;
bool g_loaded = false;

unsigned char* arg_bytes(int index);
size_t arg_size(int index);

void load_args(const std::string& dir) {
  g_orig.assign(@NARGS@, Bytes());
  g_count.assign(@NARGS@, 0);
@LOAD@
  g_changes.clear();
  g_loaded = true;
}

// Before a call: in-place arguments restored, this call's changes applied, outputs poisoned.
void prepare() {
@RESTORE@
  for (const Change& c : g_changes) std::memcpy(arg_bytes(c.arg) + c.index * c.value.size(),
                                                c.value.data(), c.value.size());
@POISON@
@BOOLS_IN@
}

// After a call: whether every input still holds this call's values; then the changes undone.
int modified_input() {
  static const bool kInput[] = {@INPUTS@};
  int modified = -1;
  for (const Change& c : g_changes) {
    unsigned char* at = arg_bytes(c.arg) + c.index * c.value.size();
    if (kInput[c.arg] && std::memcmp(at, c.value.data(), c.value.size()) != 0) modified = c.arg;
    std::memcpy(at, g_orig[c.arg].data() + c.index * c.value.size(), c.value.size());
  }
@COMPARE_INPUTS@
  return modified;
}

void undo_changes() {
  for (const Change& c : g_changes)
    std::memcpy(arg_bytes(c.arg) + c.index * c.value.size(),
                g_orig[c.arg].data() + c.index * c.value.size(), c.value.size());
}

void call() {
@CALL@
}

void write_outputs() {
  g_window_used = 0;
  g_dumped.clear();
@WRITE@
}

void check_guards() {
@GUARDS@
}

// After a call: std::vector<bool> elements back into their byte mirrors.
void collect() {
@BOOLS_OUT@
}

unsigned char* arg_bytes(int index) {
  switch (index) {
@ARG_BYTES@
  }
  return nullptr;
}

size_t arg_size(int index) {
  switch (index) {
@ARG_SIZE@
  }
  return 0;
}

double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
}

double since_ms(std::chrono::steady_clock::time_point start) {
  auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::milli>(elapsed).count();
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  fail(EXIT_PROTOCOL, "harness: bad hex digit in a change");
}

// "change ARG WIDTH INDEX:HEX INDEX:HEX ..." adds changes to the next calls' variant.
void parse_changes(const char* text) {
  int arg = 0, width = 0, used = 0;
  if (std::sscanf(text, "%d %d%n", &arg, &width, &used) != 2 || arg < 0 || arg >= @NARGS@ ||
      width <= 0 || g_orig[arg].empty())
    fail(EXIT_PROTOCOL, "harness: bad change command");
  const char* p = text + used;
  while (*p == ' ') {
    ++p;
    char* end = nullptr;
    unsigned long long index = std::strtoull(p, &end, 10);
    if (!end || *end != ':' || (index + 1) * width > arg_size(arg))
      fail(EXIT_PROTOCOL, "harness: change outside its argument");
    p = end + 1;
    Change c{arg, static_cast<size_t>(index), Bytes(width)};
    for (int b = 0; b < width; ++b, p += 2) c.value[b] = (hex_digit(p[0]) << 4) | hex_digit(p[1]);
    g_changes.push_back(std::move(c));
  }
}

// --- the device side: allocation poisoning, launch timing, managed memory refused ---------
#if defined(REGRAPHT_CANDIDATE)
bool g_capture = false;
bool g_poison_allocations = true;
std::vector<std::pair<cudaEvent_t, cudaEvent_t>> g_launches;
std::vector<std::pair<cudaEvent_t, cudaEvent_t>> g_spare;
double g_runtime_ms = 0;  // the call's host time inside wrapped runtime calls and launches
size_t g_windows = 0;     // how many wrapped calls and launches it made
double g_window_cost_ms = 0;

// A wrapped runtime call (allocation, copy, sync, device query): its time is not the
// call's own host work (see timed_call).
template <typename Call>
cudaError_t runtime_call(Call call) {
  if (!g_capture) return call();
  auto t0 = std::chrono::steady_clock::now();
  cudaError_t result = call();
  g_runtime_ms += since_ms(t0);
  ++g_windows;
  return result;
}

// What timing one wrapped call costs outside its own window (the clock reads and the
// bookkeeping), taken off the call's host work per wrapped call so the measuring is not
// billed to the candidate, whatever a clock read costs on the machine (on the H100 VM it
// is a cheap TSC read, and an honest saxpy's host work came to 4-7 us either way:
// benchmarks/results/gpu-h100-host-work.json). Best of five rounds, so a preempted round
// does not count.
void measure_window_cost() {
  g_capture = true;
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    g_runtime_ms = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 200; ++i) runtime_call([] { return cudaSuccess; });
    best = std::min(best, (since_ms(t0) - g_runtime_ms) / 200);
  }
  g_capture = false;
  g_window_cost_ms = std::max(0.0, best);
}

template <typename Launch>
cudaError_t timed_launch(cudaStream_t stream, Launch launch) {
  if (!g_capture) return launch();
  auto t0 = std::chrono::steady_clock::now();
  std::pair<cudaEvent_t, cudaEvent_t> events;
  if (g_spare.empty()) {
    cudaEventCreate(&events.first);
    cudaEventCreate(&events.second);
  } else {
    events = g_spare.back();
    g_spare.pop_back();
  }
  cudaEventRecord(events.first, stream);
  cudaError_t result = launch();
  cudaEventRecord(events.second, stream);
  g_launches.push_back(events);
  g_runtime_ms += since_ms(t0);
  ++g_windows;
  return result;
}

void check_device(const char* when) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error %s: %s: %s\n", when, cudaGetErrorName(e),
                 cudaGetErrorString(e));
    std::fflush(stderr);
    std::_Exit(EXIT_CUDA);
  }
}

void* g_flush = nullptr;
size_t g_flush_bytes = 0;
cudaEvent_t g_start, g_stop;
#else
[[maybe_unused]] void check_device(const char*) {}
#endif

// Before a timed call: the device's L2 overwritten, so no call starts with the last one's
// data there. Host caches are left as they are, for the candidate and the reference alike:
// a 64 MiB sweep cannot empty the GPU machine's 300 MiB L3 and cost part of every call, and
// clflush of a call's own arrays added ~0.28 s per call there (a VM;
// docs/verification-design.md).
void flush_caches() {
#if defined(REGRAPHT_CANDIDATE)
  static unsigned round = 0;
  ++round;
  if (g_flush) cudaMemset(g_flush, static_cast<int>(round & 0xFF), g_flush_bytes);
  check_device("before a call");
#endif
}

// One call: host clock, device-wide events and per-launch events around it, process CPU time,
// and the call's own host work: its time outside the wrapped runtime calls and launches
// (loops left on the host, which kernel-only time adds to the kernels').
std::string timed_call(bool flush) {
  prepare();
  if (flush) flush_caches();
#if defined(REGRAPHT_CANDIDATE)
  g_poison_allocations = !flush;
  g_launches.clear();
  const double c0 = cpu_ms();
  auto t0 = std::chrono::steady_clock::now();
  cudaEventRecord(g_start, 0);
  g_runtime_ms = 0;
  g_windows = 0;
  g_capture = true;
  auto w0 = std::chrono::steady_clock::now();
  call();
  const double host_work_ms = std::max(
      0.0, since_ms(w0) - g_runtime_ms - static_cast<double>(g_windows) * g_window_cost_ms);
  g_capture = false;
  cudaDeviceSynchronize();
  cudaEventRecord(g_stop, 0);
  cudaEventSynchronize(g_stop);
  const double host_ms = since_ms(t0);
  const double used_ms = cpu_ms() - c0;
  float event_ms = 0;
  cudaEventElapsedTime(&event_ms, g_start, g_stop);
  double kernel_ms = 0;
  for (auto& ev : g_launches) {
    float ms = 0;
    cudaEventElapsedTime(&ms, ev.first, ev.second);
    kernel_ms += ms;
    g_spare.push_back(ev);
  }
  const size_t launches = g_launches.size();
  check_device("after the call");
#else
  const double c0 = cpu_ms();
  auto t0 = std::chrono::steady_clock::now();
  call();
  const double host_ms = since_ms(t0);
  const double used_ms = cpu_ms() - c0;
  const double event_ms = host_ms, kernel_ms = 0, host_work_ms = host_ms;
  const size_t launches = 0;
#endif
  check_guards();
  collect();
  char line[240];
  std::snprintf(line, sizeof line, "done %.6f %.6f %.6f %zu %.6f %.6f", host_ms,
                static_cast<double>(event_ms), kernel_ms, launches, used_ms, host_work_ms);
  return line;
}

}  // namespace

#if defined(REGRAPHT_CANDIDATE)
extern "C" cudaError_t __wrap_cudaMallocManaged(void**, size_t, unsigned int) {
  fail(EXIT_MANAGED, "managed memory (cudaMallocManaged) is not allowed");
}
extern "C" void __wrap___cudaRegisterManagedVar(void**, void**, char*, const char*, int, size_t,
                                                int, int) {
  fail(EXIT_MANAGED, "managed memory (__managed__ variables) is not allowed");
}

// Fresh cudaMalloc memory reads as zero (or as what the last call left there), which hides a
// candidate that reads device memory it never initialized (an accumulator, a counter): in
// the small cases' calls every allocation is filled with 0xFF (a NaN) first. Calls at the
// timing size are all treated alike (none poisons), so none of them stands out.
extern "C" cudaError_t __real_cudaMalloc(void**, size_t);
extern "C" cudaError_t __wrap_cudaMalloc(void** pointer, size_t size) {
  cudaError_t result = runtime_call([&] { return __real_cudaMalloc(pointer, size); });
  if (result == cudaSuccess && size && g_poison_allocations) cudaMemset(*pointer, 0xFF, size);
  return result;
}

// The same for stream-ordered allocations, whose pool hands back memory a call freed (or
// fresh, zeroed pages where the pool gave its memory back): filled on the allocating
// stream, so the fill lands before anything the candidate queues after the allocation.
extern "C" cudaError_t __real_cudaMallocAsync(void**, size_t, cudaStream_t);
extern "C" cudaError_t __wrap_cudaMallocAsync(void** pointer, size_t size, cudaStream_t stream) {
  cudaError_t result = runtime_call([&] { return __real_cudaMallocAsync(pointer, size, stream); });
  if (result == cudaSuccess && size && g_poison_allocations)
    cudaMemsetAsync(*pointer, 0xFF, size, stream);
  return result;
}
extern "C" cudaError_t __real_cudaMallocFromPoolAsync(void**, size_t, cudaMemPool_t,
                                                       cudaStream_t);
extern "C" cudaError_t __wrap_cudaMallocFromPoolAsync(void** pointer, size_t size,
                                                       cudaMemPool_t pool, cudaStream_t stream) {
  cudaError_t result = runtime_call(
      [&] { return __real_cudaMallocFromPoolAsync(pointer, size, pool, stream); });
  if (result == cudaSuccess && size && g_poison_allocations)
    cudaMemsetAsync(*pointer, 0xFF, size, stream);
  return result;
}

extern "C" cudaError_t __real___cudaLaunchKernel(cudaKernel_t, dim3, dim3, void**, size_t,
                                                  cudaStream_t);
extern "C" cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                  void** args, size_t shared, cudaStream_t stream) {
  return timed_launch(stream, [&] {
    return __real___cudaLaunchKernel(kernel, grid, block, args, shared, stream);
  });
}
extern "C" cudaError_t __real_cudaLaunchKernel(const void*, dim3, dim3, void**, size_t,
                                                cudaStream_t);
extern "C" cudaError_t __wrap_cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block,
                                                void** args, size_t shared, cudaStream_t stream) {
  return timed_launch(stream, [&] {
    return __real_cudaLaunchKernel(kernel, grid, block, args, shared, stream);
  });
}
extern "C" cudaError_t __real_cudaLaunchKernelExC(const cudaLaunchConfig_t*, const void*, void**);
extern "C" cudaError_t __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t* config,
                                                   const void* kernel, void** args) {
  return timed_launch(config->stream,
                      [&] { return __real_cudaLaunchKernelExC(config, kernel, args); });
}
extern "C" cudaError_t __real_cudaLaunchCooperativeKernel(const void*, dim3, dim3, void**, size_t,
                                                           cudaStream_t);
extern "C" cudaError_t __wrap_cudaLaunchCooperativeKernel(const void* kernel, dim3 grid,
                                                           dim3 block, void** args,
                                                           size_t shared, cudaStream_t stream) {
  return timed_launch(stream, [&] {
    return __real_cudaLaunchCooperativeKernel(kernel, grid, block, args, shared, stream);
  });
}

@RUNTIME_WRAPS@
#endif

@LOCKDOWN@

// The protocol: one command per line on IN, one answer per line on OUT (see
// regrapht_core/verify/driver.py). Candidate code runs only inside "call".
int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (!((mode == "serve" && argc == 5) || (mode == "script" && argc == 4)))
    fail(64, "usage: harness serve IN_FD OUT_FD WINDOW_FD | harness script FILE OUT_FILE");
  FILE* in = nullptr;
  FILE* out = nullptr;
  if (mode == "serve") {
#if defined(REGRAPHT_CANDIDATE)
    const bool locked = regrapht_lockdown();
#else
    const bool locked = false;
#endif
    map_window(std::atoi(argv[4]));
    in = fdopen(std::atoi(argv[2]), "r");
    out = fdopen(std::atoi(argv[3]), "w");
    if (!in || !out) fail(EXIT_PROTOCOL, "harness: bad protocol descriptors");
    std::fprintf(out, "hello %d\n", locked ? 1 : 0);
    std::fflush(out);
  } else if (mode == "script") {
    in = std::fopen(argv[2], "r");
    out = std::fopen(argv[3], "w");
    if (!in || !out) fail(EXIT_PROTOCOL, "harness: cannot open the script");
  } else {
    fail(64, "harness: unknown mode");
  }
#if defined(REGRAPHT_CANDIDATE)
  cudaEventCreate(&g_start);
  cudaEventCreate(&g_stop);
  measure_window_cost();
#endif
  char* line = nullptr;
  size_t room = 0;
  ssize_t got;
  while ((got = getline(&line, &room, in)) > 0) {
    if (line[got - 1] == '\n') line[got - 1] = 0;
    std::string answer = "ok";
    char word[16] = {0};
    int used = 0;
    if (std::sscanf(line, "%15s%n", word, &used) != 1)
      fail(EXIT_PROTOCOL, "harness: empty command");
    const std::string command = word;
    const char* rest = line + used + (line[used] == ' ' ? 1 : 0);
    if (command == "load") {
      load_args(rest);
    } else if (command == "flush") {
      unsigned long long device_bytes = 0;
      if (std::sscanf(rest, "%llu", &device_bytes) != 1)
        fail(EXIT_PROTOCOL, "harness: bad flush command");
#if defined(REGRAPHT_CANDIDATE)
      g_flush_bytes = device_bytes;
      if (device_bytes && cudaMalloc(&g_flush, device_bytes) != cudaSuccess)
        fail(EXIT_CUDA, "harness: cannot allocate the L2 flush buffer");
#endif
    } else if (command == "change") {
      parse_changes(rest);
    } else if (command == "clear") {
      g_changes.clear();
    } else if (command == "call") {
      if (!g_loaded) fail(EXIT_PROTOCOL, "harness: call before load");
      answer = timed_call(std::atoi(rest) != 0);
    } else if (command == "dump") {
      write_outputs();
      const int modified = modified_input();
      answer = "dumped " + std::to_string(modified) + g_dumped;
    } else if (command == "next") {
      undo_changes();
    } else if (command == "quit") {
      std::fprintf(out, "bye\n");
      std::fflush(out);
      std::_Exit(0);
    } else {
      fail(EXIT_PROTOCOL, "harness: unknown command");
    }
    std::fprintf(out, "%s\n", answer.c_str());
    std::fflush(out);
  }
  std::fflush(out);
  std::_Exit(0);
}
"""
