"""What moving a memory-bound map's data costs on the GPU machine, against the CPU loop.

Why the C++ corpus's memory-bound functions stay slower than their sequential code end to
end, whichever way the copies are made (benchmarks/transfers/transfers.cu lists the
strategies). Run on the GPU machine after ``source scripts/gpu-env.sh``::

    python3 benchmarks/transfers.py

Writes ``benchmarks/results/gpu-<gpu>-transfers.json`` (``gpu-h200-transfers.json`` on an
H200), and into ``$OUT``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.provenance import device_prefix, provenance, result_tag, write_result
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Verifier

SOURCE = Path(__file__).parent / "transfers" / "transfers.cu"


def main() -> None:
    verifier = Verifier(VerifyConfig())
    if verifier.device is None:
        sys.exit("no GPU: this benchmark times copies to one")
    with tempfile.TemporaryDirectory() as tmp:
        binary = Path(tmp) / "transfers"
        build = ["nvcc", "-O3", "-std=c++17", f"-arch={verifier.compiler.arch}"]
        subprocess.run([*build, str(SOURCE), "-o", str(binary)], check=True)
        done = subprocess.run([str(binary)], check=True, capture_output=True, text=True)
        measured = json.loads(done.stdout)
    document = {**provenance(verifier, "python3 benchmarks/transfers.py"), **measured}
    write_result(f"{device_prefix(verifier.device.name)}-transfers{result_tag()}.json", document)
    sys.stdout.write(json.dumps(measured, indent=1) + "\n")


if __name__ == "__main__":
    main()
