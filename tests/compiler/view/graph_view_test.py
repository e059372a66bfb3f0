#!/usr/bin/env python3
"""`uringc graph`'s request view of the examples, as processes: the DOT of each example equals its
golden file in golden/ (regenerate after an intended change with
`URINGC_UPDATE_GOLDEN=1 python3 tests/compiler/view/graph_view_test.py build/uringc .` and review
the diff), and structural checks that do not trust the goldens: every request of rgir appears
exactly once with its file and line; copy's read feeds its write with `n`; hedge's `any` sits in
a `within 10 ms` cluster that has a timeout edge; echo's request view is a fraction of its IR
view. Also --view=ir, --format and their usage errors.

usage: graph_view_test.py URINGC SOURCE_ROOT
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

UR, ROOT = sys.argv[1], sys.argv[2]
GOLDEN = os.path.join(ROOT, "tests", "compiler", "view", "golden")
GOLDEN_EXAMPLES = ["copy", "deadline", "echo", "echo_multishot", "fileserver", "hedge",
                   "nop_chain", "proxy", "retry", "tee"]


def example(name):
    return os.path.join(ROOT, "examples", name + ".uring")


def graph(*args):
    p = subprocess.run([UR, "graph", *args], capture_output=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError(p.stderr.decode())
    return p.stdout.decode()


QUOTED = r'"((?:[^"\\]|\\.)*)"'


def unquote(s):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


class Dot:
    """The nodes, clusters and edges of a DOT text as uringc writes it (one statement a line)."""

    def __init__(self, text):
        self.nodes = {}     # name -> (label, attrs, innermost cluster or None)
        self.clusters = {}  # name -> (label, parent or None)
        self.edges = []     # (from, to, {attr: value})
        stack = []
        for line in text.splitlines():
            line = line.strip()
            if m := re.match(r"subgraph (\S+) \{$", line):
                stack.append(m.group(1))
                self.clusters[m.group(1)] = ("", stack[-2] if len(stack) > 1 else None)
            elif line == "}":
                if stack:
                    stack.pop()
            elif (m := re.match(r"label=" + QUOTED + ";", line)) and stack:
                self.clusters[stack[-1]] = (unquote(m.group(1)), self.clusters[stack[-1]][1])
            elif m := re.match(r"(\S+) -> (\S+)(?: \[(.*)\])?;$", line):
                self.edges.append((m.group(1), m.group(2), self.attrs(m.group(3) or "")))
            elif m := re.match(r"(\S+) \[(.*)\];$", line):
                attrs = self.attrs(m.group(2))
                if "label" in attrs and m.group(1) not in ("node", "edge"):
                    self.nodes[m.group(1)] = (attrs["label"], attrs, stack[-1] if stack else None)

    @staticmethod
    def attrs(text):
        return {k: unquote(q) if q else v
                for k, q, v in re.findall(r"(\w+)=(?:" + QUOTED + r"|([^,\]]+))", text)}

    def requests(self):
        return {n: v for n, v in self.nodes.items() if v[1].get("fillcolor") == "lightyellow"}

    def node(self, prefix):
        found = [n for n, v in self.nodes.items() if v[0].startswith(prefix)]
        if len(found) != 1:
            raise AssertionError(f"{len(found)} nodes begin with {prefix!r}")
        return found[0]

    def ancestors(self, cluster):
        while cluster is not None:
            yield cluster
            cluster = self.clusters[cluster][1]


def rgir_requests(path):
    """The request names of `uringc check --emit=rgir`'s request nodes, and `recv_each` for
    each stream's wait node."""
    p = subprocess.run([UR, "check", "--emit=rgir", path], capture_output=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError(p.stderr.decode())
    out = []
    for line in p.stdout.decode().splitlines():
        if m := re.match(r"\s*n\d+ t\d+ request (\w+)\(", line):
            out.append(m.group(1))
        elif re.match(r"\s*n\d+ t\d+ stream\.wait\b", line):
            out.append("recv_each")
    return out


class GraphView(unittest.TestCase):
    def test_goldens(self):
        update = os.environ.get("URINGC_UPDATE_GOLDEN") == "1"
        for name in GOLDEN_EXAMPLES:
            with self.subTest(example=name):
                got = graph("--format=dot", example(name)).replace(ROOT + "/", "")
                path = os.path.join(GOLDEN, name + ".dot")
                if update:
                    with open(path, "w") as f:
                        f.write(got)
                    continue
                with open(path) as f:
                    want = f.read()
                self.assertEqual(got, want, f"{path} differs; if the change is intended, "
                                 "regenerate with URINGC_UPDATE_GOLDEN=1 and review the diff")

    def test_each_request_appears_once_with_its_line(self):
        for name in GOLDEN_EXAMPLES:
            with self.subTest(example=name):
                dot = Dot(graph("--format=dot", example(name)))
                boxes = [label.split("\n") for label, _, _ in dot.requests().values()]
                # As many boxes as rgir has requests and streams, of the same requests.
                ir = rgir_requests(example(name))
                self.assertEqual(sorted(b[0].split("(")[0] for b in boxes), sorted(ir))
                # Each request written in the example is one box, with the line it is on.
                with open(example(name)) as f:
                    lines = f.read().splitlines()
                own = [(b[0], b[1]) for b in boxes if b[1].startswith(name + ".uring:")]
                self.assertTrue(own)
                self.assertEqual(len(own), len(set(own)), own)
                for text, where in own:
                    line = lines[int(where.rsplit(":", 1)[1]) - 1]
                    self.assertIn(text.split("(")[0] + "(", line, (name, text, where))

    def test_copy_read_feeds_write_with_n(self):
        dot = Dot(graph("--format=dot", example("copy")))
        read = dot.node("read(src, buf[lane], off)")
        write = dot.node("write(f, data[done..], off + done)")
        values = [(f, t, a["label"]) for f, t, a in dot.edges if a.get("color") == "blue"]
        self.assertIn((read, write, "n"), values)
        self.assertIn((read, "g0_end", "copied"), values)
        self.assertEqual(dot.clusters[dot.nodes[read][2]][0], "while off < size")
        lane = [c for c, (label, _) in dot.clusters.items() if label == "parallel lane in 0..4"]
        self.assertEqual(len(lane), 1)
        self.assertIn(lane[0], list(dot.ancestors(dot.nodes[write][2])))
        # The write comes from std.io's write_all: inside its loop, inside the call in copy.uring.
        calls = [c for c in dot.ancestors(dot.nodes[write][2])
                 if dot.clusters[c][0] == "write_all(dst, buf[lane][..n], off)\ncopy.uring:13"]
        self.assertEqual(len(calls), 1)
        self.assertEqual(dot.clusters[dot.nodes[write][2]][0], "while done < len(data)")
        self.assertEqual(dot.clusters[calls[0]][1], dot.nodes[read][2])
        # `within 1 s else fail` on the read: a timeout edge to the failure exit.
        self.assertIn((read, "g0_fail"), [(f, t) for f, t, a in dot.edges
                                          if a.get("label") == "timeout"])

    def test_hedge_any_in_a_deadline_with_a_timeout_edge(self):
        dot = Dot(graph("--format=dot", example("hedge")))
        anys = [c for c, (label, _) in dot.clusters.items() if label == "any"]
        self.assertEqual(len(anys), 1)
        within = dot.clusters[anys[0]][1]
        self.assertEqual(dot.clusters[within][0], "within 10 ms else fail ETIME")
        timeouts = [(t, a) for f, t, a in dot.edges if a.get("ltail") == within]
        self.assertEqual(len(timeouts), 1)
        self.assertEqual(timeouts[0][0], "g0_fail")
        self.assertEqual(timeouts[0][1]["label"], "timeout")
        self.assertEqual(timeouts[0][1]["style"], "dashed")
        for arm in ("read(a, buf[0], 0)", "read(b, buf[1], 0)"):
            self.assertEqual(dot.nodes[dot.node(arm)][2], anys[0])

    def test_echo_requests_are_a_fraction_of_its_ir(self):
        requests = Dot(graph("--format=dot", example("echo")))
        ir = graph("--format=dot", "--view=ir", example("echo"))
        ir_nodes = len(re.findall(r"^\s*g0n\d+ \[", ir, re.M))
        self.assertGreater(ir_nodes, 30)
        self.assertLessEqual(len(requests.nodes) * 3, ir_nodes, (len(requests.nodes), ir_nodes))
        self.assertIn("accept(listener)", [v[0].split("\n")[0] for v in requests.nodes.values()])

    def test_options(self):
        ir = graph("--view=ir", "--format=dot", example("nop_chain"))
        self.assertIn("cluster_g0t0", ir)
        self.assertEqual(graph("--view", "requests", "--format", "dot", example("nop_chain")),
                         graph("--format=dot", example("nop_chain")))
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "n.dot")
            p = subprocess.run([UR, "graph", "--format=dot", "-o", out, example("nop_chain")],
                               capture_output=True, timeout=60)
            self.assertEqual((p.returncode, p.stdout), (0, b""), p.stderr)
            with open(out) as f:
                self.assertEqual(f.read(), graph("--format=dot", example("nop_chain")))
        for bad in (["--view=nodes"], ["--format=png"]):
            p = subprocess.run([UR, "graph", *bad, example("nop_chain")], capture_output=True,
                               timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
