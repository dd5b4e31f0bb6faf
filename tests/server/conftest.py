"""A real server subprocess and a client that records what a user would see.

pytest-lsp's client answers configuration and progress requests; it has no handler for
``workspace/applyEdit`` or ``window/showMessageRequest``, so the ``editor`` records those
and answers like a user who accepts the edit (and, when told to, picks an action).
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.uris import to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "smooth.cpp"
SOURCES = REPO / "tests" / "data" / "sources"

CAPABILITIES = types.ClientCapabilities(
    workspace=types.WorkspaceClientCapabilities(
        apply_edit=True,
        configuration=True,
        workspace_edit=types.WorkspaceEditClientCapabilities(
            document_changes=True,
            resource_operations=[types.ResourceOperationKind.Create],
            change_annotation_support=types.ChangeAnnotationsSupportOptions(groups_on_label=True),
        ),
    ),
    window=types.WindowClientCapabilities(
        work_done_progress=True,
        show_message=types.ShowMessageRequestClientCapabilities(
            message_action_item=types.ClientShowMessageActionItemOptions(
                additional_properties_support=False
            )
        ),
    ),
    text_document=types.TextDocumentClientCapabilities(
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
        code_action=types.CodeActionClientCapabilities(
            code_action_literal_support=types.ClientCodeActionLiteralOptions(
                code_action_kind=types.ClientCodeActionKindOptions(
                    value_set=[types.CodeActionKind.RefactorRewrite]
                )
            )
        ),
    ),
)


@dataclass
class Editor:
    """What the server asked of the user, and how the user answers."""

    edits: list[types.ApplyWorkspaceEditParams] = field(default_factory=list)
    requests: list[types.ShowMessageRequestParams] = field(default_factory=list)
    choose: str | None = None
    """The title of the action to pick in ``window/showMessageRequest``."""
    accept: bool = True
    initialized: types.InitializeResult | None = None

    def apply_edit(self, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        self.edits.append(params)
        return types.ApplyWorkspaceEditResult(
            applied=self.accept, failure_reason=None if self.accept else "discarded"
        )

    def message_request(
        self, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None:
        self.requests.append(params)
        return types.MessageActionItem(self.choose) if self.choose else None


def _command_or_code_action(value: Any, _: object) -> types.Command | types.CodeAction:
    """lsprotocol 2025.0.0 reads every code action that carries a command as a ``Command``
    (VS Code's client tells them apart by the type of ``command``; so does this)."""
    converter = get_converter()
    if isinstance(value.get("command"), str):
        return converter.structure(value, types.Command)
    return converter.structure(value, types.CodeAction)


@pytest.fixture
def editor() -> Editor:
    return Editor()


async def start_session(lsp_client: LanguageClient, editor: Editor, folder: Path) -> None:
    """Initialize like an editor with one workspace folder, and answer for the user."""
    lsp_client.protocol._converter.register_structure_hook(
        types.Command | types.CodeAction, _command_or_code_action
    )

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return editor.apply_edit(params)

    @lsp_client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def message_request(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        return editor.message_request(params)

    editor.initialized = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=CAPABILITIES,
            initialization_options={"regrapht": {"budget": 3}},
            root_uri=folder.as_uri(),
            workspace_folders=[types.WorkspaceFolder(folder.as_uri(), "work")],
        )
    )


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "regrapht_server"])
)
async def client(lsp_client: LanguageClient, editor: Editor, tmp_path: Path) -> AsyncIterator[None]:
    await start_session(lsp_client, editor, tmp_path)
    yield
    await lsp_client.shutdown_session()


CRASHING = """
from regrapht_server.jobs import Engine
def crash(self, settings):
    raise RuntimeError("injected fault")
Engine._build_optimizer = crash
from regrapht_server.__main__ import main
main()
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-c", CRASHING]))
async def crashing_client(
    lsp_client: LanguageClient, editor: Editor, tmp_path: Path
) -> AsyncIterator[None]:
    """A server whose jobs all crash with an unexpected exception."""
    await start_session(lsp_client, editor, tmp_path)
    yield
    await lsp_client.shutdown_session()


def open_file(client: LanguageClient, path: Path, language: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri, language, version, path.read_text(encoding="utf-8"))
        )
    )
    return uri


def copy_source(source: Path, folder: Path, name: str | None = None) -> Path:
    target = folder / (name or source.name)
    shutil.copyfile(source, target)
    return target


def configure(client: LanguageClient, **settings: Any) -> None:
    """Push settings the way VS Code does (the client has no ``regrapht`` section to pull,
    so the server's own pull after ``initialized`` cannot race with this)."""
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"regrapht": settings})
    )


async def wait_for(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    """Polls a client-side record; the server's notifications arrive on their own."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.05)


def apply_to_disk(edit: types.WorkspaceEdit) -> None:
    """What the editor does on Apply, then Save."""
    for change in edit.document_changes or []:
        if isinstance(change, types.CreateFile):
            path = Path(to_fs_path(change.uri) or "")
            assert not path.exists()
            path.write_text("")
        elif isinstance(change, types.TextDocumentEdit):
            path = Path(to_fs_path(change.text_document.uri) or "")
            path.write_text(apply_text(path.read_text(), change.edits))


def apply_text(text: str, edits: Sequence[types.TextEdit]) -> str:
    """What a client does with one document's edits (ASCII text: columns are characters)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        return starts[min(position.line, len(lines))] + position.character

    ordered = sorted(edits, key=lambda e: offset(e.range.start), reverse=True)
    for edit in ordered:
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text
