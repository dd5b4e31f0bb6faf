"""The device run of a real job through the real server: verified, timed, offered."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import EXAMPLE, Editor, apply_to_disk, configure, copy_source, open_file
from .test_jobs_e2e import optimize

pytestmark = [pytest.mark.gpu, pytest.mark.slow]


async def test_on_the_gpu_a_verified_faster_edit_is_offered(
    client: LanguageClient, editor: Editor, tmp_path: Path
) -> None:
    """Rewriters only: the embedded model's 98 MB file cannot travel to the device."""
    source = copy_source(EXAMPLE, tmp_path)
    uri = open_file(client, source, "cpp")
    configure(client, budget=3, useModel=False)
    assert (await optimize(client, uri))["status"] == "applied"
    (params,) = editor.edits
    annotation = (params.edit.change_annotations or {})["regrapht"]
    assert "faster" in annotation.label and "NVIDIA" in annotation.label
    assert annotation.needs_confirmation
    _, sidecar, _ = params.edit.document_changes or []
    assert isinstance(sidecar, types.TextDocumentEdit)
    assert "x faster than the sequential smooth (verified on NVIDIA" in sidecar.edits[0].new_text
    apply_to_disk(params.edit)
    written = (tmp_path / "smooth.regrapht.cu").read_text()
    assert "__global__" in written and "model: none (rewriters only)" in written
