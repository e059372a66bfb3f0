#!/usr/bin/env python3
"""A scripted LSP client: runs one whole session against `uringc lsp` over pipes, as an editor
would, on examples/echo.uring and the real stdlib.

Usage: test_lsp.py URINGC SOURCE_DIR. Every read has a deadline, so a server that hangs fails
the test instead of blocking it. Exits 77 (skipped) when the uringc binary is missing.
"""
import json
import os
import pathlib
import select
import subprocess
import sys
import time
import unittest
import urllib.parse

URINGC = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else None
SOURCE = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else None
TIMEOUT = 20.0


def uri(path):
    return "file://" + urllib.parse.quote(str(pathlib.Path(path).resolve()))


class Client:
    def __init__(self):
        self.proc = subprocess.Popen([str(URINGC), "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buffer = b""
        self.next_id = 1

    def send_raw(self, body):
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, message):
        message = dict(message, jsonrpc="2.0")
        self.send_raw(json.dumps(message).encode())

    def _read_bytes(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the server sent nothing for %.0f s" % TIMEOUT)
        ready, _, _ = select.select([self.proc.stdout], [], [], left)
        if not ready:
            raise TimeoutError("the server sent nothing for %.0f s" % TIMEOUT)
        chunk = os.read(self.proc.stdout.fileno(), 65536)
        if not chunk:
            raise EOFError("the server closed its output")
        self.buffer += chunk

    def receive(self):
        deadline = time.monotonic() + TIMEOUT
        while b"\r\n\r\n" not in self.buffer:
            self._read_bytes(deadline)
        header, _, rest = self.buffer.partition(b"\r\n\r\n")
        length = None
        for line in header.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        assert length is not None, "a message without Content-Length: %r" % header
        while len(rest) < length:
            self._read_bytes(deadline)
            header, _, rest = self.buffer.partition(b"\r\n\r\n")
        self.buffer = rest[length:]
        return json.loads(rest[:length])

    def request(self, method, params=None):
        """Sends a request; returns its response and the notifications that came before it."""
        rid = self.next_id
        self.next_id += 1
        self.send({"id": rid, "method": method, "params": params or {}})
        notes = []
        while True:
            m = self.receive()
            if m.get("id") == rid and "method" not in m:
                return m, notes
            notes.append(m)

    def notify(self, method, params=None):
        self.send({"method": method, "params": params or {}})

    def diagnostics(self):
        m = self.receive()
        assert m.get("method") == "textDocument/publishDiagnostics", m
        return m["params"]


def position_of(text, needle, delta=0):
    """The LSP position (UTF-16) of `needle` in `text`, plus `delta` characters."""
    offset = text.index(needle) + delta
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return {"line": line, "character": len(text[start:offset].encode("utf-16-le")) // 2}


class LspSession(unittest.TestCase):
    def test_whole_session(self):
        echo = SOURCE / "examples" / "echo.uring"
        text = echo.read_text()
        doc = uri(echo)
        c = Client()
        try:
            self.session(c, text, doc)
        finally:
            if c.proc.poll() is None:
                c.proc.kill()
                c.proc.wait()
            for pipe in (c.proc.stdin, c.proc.stdout, c.proc.stderr):
                pipe.close()

    def session(self, c, text, doc):
        # Before initialize, requests are refused.
        r, _ = c.request("textDocument/hover", {"textDocument": {"uri": doc},
                                                "position": {"line": 0, "character": 0}})
        self.assertEqual(r["error"]["code"], -32002)

        r, _ = c.request("initialize", {"processId": os.getpid(), "rootUri": uri(SOURCE),
                                        "capabilities": {}})
        caps = r["result"]["capabilities"]
        self.assertEqual(caps["positionEncoding"], "utf-16")
        self.assertTrue(caps["hoverProvider"] and caps["definitionProvider"]
                        and caps["documentSymbolProvider"])
        self.assertIn(caps["textDocumentSync"]["change"], (1, 2))
        c.notify("initialized")

        # An error introduced into a real example: `recv` misspelt.
        broken = text.replace("recv(sock", "recx(sock", 1)
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": doc, "languageId": "uring", "version": 1, "text": broken}})
        published = c.diagnostics()
        self.assertEqual(published["uri"], doc)
        diags = published["diagnostics"]
        self.assertEqual(len(diags), 1, diags)
        d = diags[0]
        self.assertEqual(d["code"], "UndefinedName")
        self.assertEqual(d["source"], "uringc")
        self.assertEqual(d["severity"], 1)
        start = position_of(broken, "recx(sock")
        self.assertEqual(d["range"]["start"], start)
        self.assertEqual(d["range"]["end"], dict(start, character=start["character"] + 4))

        # Fixed by a full-text change: the diagnostics are cleared.
        c.notify("textDocument/didChange", {"textDocument": {"uri": doc, "version": 2},
                                            "contentChanges": [{"text": text}]})
        published = c.diagnostics()
        self.assertEqual(published["diagnostics"], [])
        self.assertEqual(published["version"], 2)

        def at(needle, delta=0):
            return {"textDocument": {"uri": doc}, "position": position_of(text, needle, delta)}

        # Hover on a parameter, where it is used.
        r, _ = c.request("textDocument/hover", at("accept(listener)", 8))
        self.assertEqual(r["result"]["contents"]["kind"], "markdown")
        self.assertIn("(parameter) listener: fd", r["result"]["contents"]["value"])
        # Hover on a request's result.
        r, _ = c.request("textDocument/hover", at("if n <= 0", 3))
        self.assertIn("let n: i32", r["result"]["contents"]["value"])
        # Hover on the request itself.
        r, _ = c.request("textDocument/hover", at("recv(sock", 1))
        self.assertIn("request recv(s: fd, into: bytes", r["result"]["contents"]["value"])

        # Go to definition of a stdlib fn: into stdlib/std/net.uring.
        r, _ = c.request("textDocument/definition", at("send_all(", 2))
        net = SOURCE / "stdlib" / "std" / "net.uring"
        self.assertEqual(r["result"]["uri"], uri(net))
        self.assertEqual(r["result"]["range"]["start"],
                         position_of(net.read_text(), "send_all(s: fd"))
        # And of a local.
        r, _ = c.request("textDocument/definition", at("close(sock)\n                    fail", 6))
        self.assertEqual(r["result"]["uri"], doc)
        self.assertEqual(r["result"]["range"]["start"], position_of(text, "sock = accept"))

        # Document symbols: the import and the graph with its parameters and outputs.
        r, _ = c.request("textDocument/documentSymbol", {"textDocument": {"uri": doc}})
        symbols = r["result"]
        self.assertEqual([s["name"] for s in symbols], ["std.net", "echo"])
        graph = symbols[1]
        self.assertEqual([s["name"] for s in graph["children"]],
                         ["listener", "buf", "served", "echoed"])
        self.assertEqual(graph["selectionRange"]["start"], position_of(text, "echo("))
        self.assertEqual(graph["range"]["start"], position_of(text, "graph echo"))
        self.assertEqual(graph["range"]["end"]["line"], text.rstrip("\n").count("\n"))

        # Malformed input: a parse error, an unknown method, an unknown notification (no answer:
        # the next message is the answer to the request after it).
        c.send_raw(b'{"jsonrpc": "2.0", "id": 99, "method": ')
        m = c.receive()
        self.assertEqual(m["error"]["code"], -32700)
        self.assertIsNone(m["id"])
        r, _ = c.request("textDocument/rename", {})
        self.assertEqual(r["error"]["code"], -32601)
        c.notify("workspace/noSuchNotification", {"x": 1})
        r, notes = c.request("textDocument/hover", at("served += 1"))
        self.assertEqual(notes, [])
        self.assertIn("(output) served: u64", r["result"]["contents"]["value"])

        # didClose clears the diagnostics.
        c.notify("textDocument/didClose", {"textDocument": {"uri": doc}})
        self.assertEqual(c.diagnostics(), {"uri": doc, "diagnostics": []})

        # shutdown, then exit: status 0.
        r, _ = c.request("shutdown")
        self.assertIn("result", r)
        self.assertIsNone(r["result"])
        c.notify("exit")
        self.assertEqual(c.proc.wait(timeout=TIMEOUT), 0, c.proc.stderr.read().decode())


if __name__ == "__main__":
    if URINGC is None or SOURCE is None:
        sys.exit("usage: test_lsp.py URINGC SOURCE_DIR")
    if not URINGC.exists():
        print("skipped: %s does not exist (build the uringc target first)" % URINGC)
        sys.exit(77)
    unittest.main(argv=sys.argv[:1], verbosity=2)
