"""Any document text through the real server (issue 17): NUL and control characters, any
line ends, positions inside a surrogate pair or past the end of a line or of the document.
Every request gets its answer and nothing is logged as a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import EXAMPLE
from .stdio import EXIT, RawServer, frame, notification, request

SMOOTH = EXAMPLE.read_text()
LOOP = next(i for i, line in enumerate(SMOOTH.splitlines()) if "acc += x[j]" in line)
TITLE = "Optimize to CUDA (ReGraphT)"

TEXTS = {
    "nul": "\0// \0\x01\x02\x1b[1m\n" + SMOOTH.replace("acc", "acc\0", 1),
    "crlf-emoji": "// 😀😀\r\n" + SMOOTH.replace("\n", "\r\n"),
    "cr": "// 😀\r" + SMOOTH.replace("\n", "\r"),
    "bom": "\ufeff// 😀\n" + SMOOTH,
    "noncharacters": "\ufffe\uffff\U0010ffff" * 50 + "\n" + SMOOTH,
    "empty": "",
    "unterminated": "void f(int n) { /* never ends\n",
}
"""Each but the last two has the example one line down: the action is on ``LOOP + 1``."""

POSITIONS = [(0, 0), (0, 4), (0, 5), (0, 10_000), (10_000, 0), (LOOP + 1, 8), (LOOP + 1, 999)]
"""(0, 4) and (0, 5) fall inside the first emoji's surrogate pair where there is one."""


def _code_action(ident: int, uri: str, line: int, character: int) -> dict[str, Any]:
    where = {"line": line, "character": character}
    params = {
        "textDocument": {"uri": uri},
        "range": {"start": where, "end": where},
        "context": {"diagnostics": []},
    }
    return request(ident, "textDocument/codeAction", params)


def _hover(ident: int, uri: str, line: int, character: int) -> dict[str, Any]:
    position = {"line": line, "character": character}
    return request(
        ident, "textDocument/hover", {"textDocument": {"uri": uri}, "position": position}
    )


async def test_odd_text_and_odd_positions_get_answers_not_tracebacks(tmp_path: Path) -> None:
    server = await RawServer.start(("-m", "regrapht_server", "--log-level", "INFO"))
    ident = 10
    try:
        await server.initialize()
        for name, text in TEXTS.items():
            uri = (tmp_path / f"{name}.cpp").as_uri()
            item = {"uri": uri, "languageId": "cpp", "version": 1, "text": text}
            await server.send(frame(notification("textDocument/didOpen", {"textDocument": item})))
            for line, character in POSITIONS:
                for make in (_code_action, _hover):
                    ident += 1
                    await server.send(frame(make(ident, uri, line, character)))
                    answer = await server.answer(ident)
                    assert "error" not in answer, (name, line, character, answer)
            ident += 1
            await server.send(frame(_code_action(ident, uri, LOOP + 1, 8)))
            actions = (await server.answer(ident))["result"]
            offered = [a["title"] for a in actions]
            assert offered == ([] if name in ("empty", "unterminated") else [TITLE]), name
            edit = {
                "range": {
                    "start": {"line": 0, "character": 5},  # inside a surrogate pair
                    "end": {"line": 10_000, "character": 3},  # past the end
                },
                "text": "\0x\r\n😀",
            }
            change = {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [edit]}
            await server.send(frame(notification("textDocument/didChange", change)))
            ident += 1
            await server.send(frame(_code_action(ident, uri, 1, 1)))
            assert "result" in await server.answer(ident), name
        ident += 1
        await server.send(frame(request(ident, "shutdown")))
        await server.answer(ident)
        await server.send(frame(EXIT))
        ended = await server.ended()
    finally:
        await server.stop()
    assert ended.code == 0
    assert b"Traceback" not in ended.stderr and b" ERROR " not in ended.stderr
