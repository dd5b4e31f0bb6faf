"""A merged result as an LSP workspace edit: previewed, annotated, needing confirmation.

The core merges the result into the document (or its ``.regrapht.cu`` sidecar) as plain
text changes; this module only addresses them to documents and versions, in the client's
position units.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from regrapht_core import api
from regrapht_server.positions import to_range

__all__ = ["ANNOTATION_ID", "Snapshot", "workspace_edit"]

ANNOTATION_ID = "regrapht"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A document as the edit will address it: the version pins what the edit was made for
    (``None`` for a file that is not open in the editor, or not there yet)."""

    uri: str
    version: int | None
    document: api.Document


def workspace_edit(
    files: Sequence[api.FileChanges],
    targets: Mapping[api.Target, Snapshot],
    offer: api.Offer,
    codec: PositionCodec,
) -> types.WorkspaceEdit:
    changes: list[types.TextDocumentEdit | types.CreateFile] = []
    for file in files:
        target = targets[file.target]
        if file.create:
            changes.append(types.CreateFile(uri=target.uri, annotation_id=ANNOTATION_ID))
        edits = [
            types.AnnotatedTextEdit(
                range=to_range(target.document, codec, change.span),
                new_text=change.text,
                annotation_id=ANNOTATION_ID,
            )
            for change in file.changes
        ]
        document = types.OptionalVersionedTextDocumentIdentifier(
            uri=target.uri, version=target.version
        )
        changes.append(types.TextDocumentEdit(text_document=document, edits=edits))
    annotation = types.ChangeAnnotation(
        label=offer.label, needs_confirmation=True, description=offer.description
    )
    return types.WorkspaceEdit(
        document_changes=changes, change_annotations={ANNOTATION_ID: annotation}
    )
