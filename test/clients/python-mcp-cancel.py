#!/usr/bin/env python3
"""Manual check (not run by jest): the official Python MCP client cancels a call over
Streamable HTTP against a real `ptc serve --http` child, and what it sends on the wire.

It starts `ptc serve --http 127.0.0.1:0 --mode ptc --max-active-runs 1` with the `slow`
tool (test/clients/fixtures/slow-tools.ts), puts a logging TCP proxy between the client
and the server, and for each way the Python SDK cancels a call (a request timeout,
`read_timeout_seconds`; an anyio cancel scope, `move_on_after`):
  1. calls run_code whose program awaits `tools.slow(...)`;
  2. cancels it once the body has started (the server prints `slow: started <tag>`);
  3. waits for the body's abort (`slow: aborted <tag>`) and checks that the next run
     starts at once (one run slot: it only can if the cancelled run's slot was freed).
Then it prints every HTTP request the client sent (method, headers that matter, JSON
body) and every connection it closed, as the wire-replay jest test reproduces them.

Run from the repository root, with Node >= 24 on PATH and the Python SDK in a venv:
    python3 -m venv /tmp/pymcp && /tmp/pymcp/bin/pip install mcp
    source scripts/ensure-node.sh && /tmp/pymcp/bin/python test/clients/python-mcp-cancel.py
Exit status 0 when every check passed.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import mcp
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REPO = Path(__file__).resolve().parents[2]
TOKEN = "python-cancel-check-0123456789"


class Server:
    """`ptc serve --http` as a child process; its stderr lines are kept."""

    def __init__(self) -> None:
        env = {**os.environ, "PTC_SERVE_TOKEN": TOKEN, "NODE_OPTIONS": ""}
        self.proc = subprocess.Popen(
            [
                os.environ.get("PTC_NODE", "node"),
                "--no-node-snapshot",
                "bin/ptc.js",
                "serve",
                "--http",
                "127.0.0.1:0",
                "--mode",
                "ptc",
                "--max-active-runs",
                "1",
                "--tools",
                "test/clients/fixtures/slow-tools.ts",
            ],
            cwd=REPO,
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self.url = ""

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        loop.run_in_executor(None, self._read)
        deadline = time.monotonic() + 60
        while not self.url:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("ptc serve did not start:\n" + "".join(self.lines))
            await asyncio.sleep(0.05)

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            match = re.search(r"serving MCP over Streamable HTTP at (\S+)", line)
            if match:
                self.url = match.group(1)

    async def until_line(self, text: str, seconds: float = 10) -> float:
        started = time.monotonic()
        while not any(text in line for line in self.lines):
            if time.monotonic() - started > seconds:
                raise AssertionError(f"server never printed {text!r}; stderr:\n" + "".join(self.lines))
            await asyncio.sleep(0.02)
        return time.monotonic() - started

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class WireLog:
    """A TCP proxy that records what the client sends and when it closes a connection."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.events: list[dict[str, object]] = []
        self.port = 0
        self._next = 0

    async def start(self) -> None:
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._next += 1
        conn = self._next
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        sent = bytearray()

        async def client_to_server() -> None:
            while data := await reader.read(65536):
                sent.extend(data)
                self._parse(conn, sent)
                up_writer.write(data)
                await up_writer.drain()
            self.events.append({"conn": conn, "event": "client closed its side", "t": time.monotonic()})
            up_writer.close()

        async def server_to_client() -> None:
            while data := await up_reader.read(65536):
                if data.startswith(b"HTTP/1.1 "):
                    status = data.split(b"\r\n", 1)[0].decode("latin-1")
                    self.events.append({"conn": conn, "event": f"server answered {status}", "t": time.monotonic()})
                writer.write(data)
                await writer.drain()
            writer.close()

        try:
            await asyncio.gather(client_to_server(), server_to_client(), return_exceptions=True)
        except asyncio.CancelledError:
            pass

    def _parse(self, conn: int, buffer: bytearray) -> None:
        # Whole requests only (Content-Length bodies: the Python client sends no chunked POSTs).
        while True:
            head_end = buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            head = buffer[:head_end].decode("latin-1").split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:])}
            length = int(headers.get("content-length", "0"))
            if len(buffer) < head_end + 4 + length:
                return
            body = bytes(buffer[head_end + 4 : head_end + 4 + length])
            del buffer[: head_end + 4 + length]
            self.events.append(
                {
                    "conn": conn,
                    "event": "request",
                    "line": head[0],
                    "headers": {k: v for k, v in headers.items() if k != "authorization"}
                    | ({"authorization": "Bearer <token>"} if "authorization" in headers else {}),
                    "body": json.loads(body) if body else None,
                    "t": time.monotonic(),
                }
            )


def program(tag: str) -> dict[str, str]:
    return {"description": "wait", "code": f"return await tools.slow({{ tag: {json.dumps(tag)} }});"}


async def check_next_run_starts(session: ClientSession, value: int) -> float:
    started = time.monotonic()
    result = await session.call_tool(
        "run_code", {"description": "x", "code": f"return {value};"}, read_timeout_seconds=10
    )
    assert not result.is_error, result
    assert (result.structured_content or {}).get("result") == value, result.structured_content
    return time.monotonic() - started


async def main() -> int:
    server = Server()
    await server.start()
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    wire = WireLog(port)
    await wire.start()
    url = f"http://127.0.0.1:{wire.port}/mcp"
    print(f"python mcp {mcp.__version__ if hasattr(mcp, '__version__') else ''} -> {server.url} (via proxy {url})")
    failures: list[str] = []
    try:
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    # Warm up (sandbox process, first compile) so the cancels below hit a running body.
                    await check_next_run_starts(session, 1)

                    # 1. The request timeout: read_timeout_seconds.
                    t0 = time.monotonic()
                    try:
                        await session.call_tool("run_code", program("timeout"), read_timeout_seconds=3.0)
                        failures.append("read_timeout_seconds: the call returned instead of timing out")
                    except Exception as error:  # noqa: BLE001 - the SDK's timeout error type varies by version
                        print(f"[timeout] call raised {type(error).__name__}: {error} after {time.monotonic() - t0:.2f}s")
                    try:
                        assert any("slow: started timeout" in line for line in server.lines), "the body never started"
                        waited = await server.until_line("slow: aborted timeout")
                        print(f"[timeout] body aborted ({waited:.2f}s after the client gave up)")
                        print(f"[timeout] next run on the single slot answered in {await check_next_run_starts(session, 7):.2f}s")
                    except AssertionError as error:
                        failures.append(f"read_timeout_seconds: {error}")

                    # 2. An anyio cancel scope around the call.
                    with anyio.move_on_after(3.0) as scope:
                        await session.call_tool("run_code", program("scope"))
                    print(f"[scope] cancel scope fired: {scope.cancelled_caught}")
                    try:
                        assert any("slow: started scope" in line for line in server.lines), "the body never started"

                        waited = await server.until_line("slow: aborted scope")
                        print(f"[scope] body aborted ({waited:.2f}s after the scope was cancelled)")
                        print(f"[scope] next run on the single slot answered in {await check_next_run_starts(session, 8):.2f}s")
                    except AssertionError as error:
                        failures.append(f"cancel scope: {error}")
    finally:
        server.stop()

    print("\n--- what the Python client sent (authorization redacted) ---")
    t_start = wire.events[0]["t"] if wire.events else 0.0
    for event in wire.events:
        stamp = f"+{float(event['t']) - float(t_start):6.2f}s conn {event['conn']}"
        if event["event"] == "request":
            headers = event["headers"]
            shown = {k: headers[k] for k in sorted(headers) if k in {"accept", "content-type", "mcp-session-id", "mcp-protocol-version", "authorization", "mcp-method", "mcp-name"}}
            print(f"{stamp} {event['line']} {json.dumps(shown)}")
            print(f"{' ' * len(stamp)} {json.dumps(event['body'])}")
        else:
            print(f"{stamp} {event['event']}")
    print("\n--- server stderr ---")
    print("".join(server.lines), end="")
    if failures:
        print("\nFAILED:\n" + "\n".join(failures))
        return 1
    print("\nOK: every cancel aborted its body and freed the run slot")
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
