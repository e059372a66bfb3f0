#!/usr/bin/env python3
"""`uringc run` / `uringc-run` at the host boundary, as separate processes: nothing is lost or
left behind before a run really starts (`PATH:create` files, the temporary object, the --vm
manifest, also on SIGINT/SIGTERM, which end the command with 130), writes are checked, symbolic
links are not followed for writing, --log-size is bounded, and file names that are not UTF-8 pass
through --vm. Host tests need no kernel feature; with --vm the last class boots the VM.

usage: run_cli_test.py URINGC URINGC_RUN OBJECT_DIR SOURCE_ROOT [--vm]
"""
import fcntl
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

UR, RUN, OBJ, ROOT = sys.argv[1:5]
VM = "--vm" in sys.argv[5:]
COPY = os.path.join(OBJ, "copy_file.bpf.o")
NOP = os.path.join(OBJ, "nop_named.bpf.o")
NOP_CHAIN = os.path.join(ROOT, "examples", "nop_chain.uring")
ECHO = os.path.join(ROOT, "examples", "echo.uring")


def run(*args, env=None, **kw):
    return subprocess.run([*args], capture_output=True, env={**os.environ, **(env or {})}, **kw)


class Temp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, data=b"precious\n"):
        with open(self.path(name), "wb") as f:
            f.write(data)
        return self.path(name)

    def read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()


class CreateFiles(Temp):
    def test_create_keeps_the_file_when_an_input_is_missing(self):
        out = self.write("out")
        p = run(RUN, COPY, "--arg", f"dst={out}:create", "--arg", "src=/nonexistent/in:r")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"cannot open `/nonexistent/in`", p.stderr)
        self.assertEqual(self.read("out"), b"precious\n")

    def test_create_keeps_the_file_when_the_kernel_lacks_the_feature(self):
        out, src = self.write("out"), self.write("in", b"x" * 100)
        p = run(RUN, COPY, "--arg", f"src={src}:r", "--arg", f"dst={out}:create")
        if b"io_uring_bpf_ops" not in p.stderr:
            self.skipTest("this kernel has io_uring_bpf_ops: the load does not fail here")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(self.read("out"), b"precious\n")

    def test_create_removes_the_file_it_made_when_the_run_never_starts(self):
        p = run(RUN, COPY, "--arg", f"dst={self.path('new')}:create", "--arg", "src=/none:r")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertFalse(os.path.exists(self.path("new")))

    def test_writing_modes_do_not_follow_symbolic_links(self):
        target = self.write("target")
        os.symlink(target, self.path("link"))
        for mode in ("create", "w", "rw"):
            p = run(RUN, COPY, "--arg", f"dst={self.path('link')}:{mode}")
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(f"is a symbolic link, and PATH:{mode} does not follow".encode(),
                          p.stderr)
            self.assertEqual(self.read("target"), b"precious\n")


class LogSize(Temp):
    def test_log_size_beyond_the_kernels_limit_is_refused(self):
        for size in (1 << 32, 16 << 30, (1 << 30)):
            p = run(RUN, NOP, "--log-size", str(size))
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(b"--log-size: 4096 to 1073741823 bytes (the kernel's limit)", p.stderr)
            self.assertNotIn(b"bad_alloc", p.stderr)

    def test_the_largest_log_costs_no_memory_until_used(self):
        # A child that runs the command and reports the largest resident set of its children.
        probe = ("import resource, subprocess, sys\n"
                 "subprocess.run(sys.argv[1:], capture_output=True)\n"
                 "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
        p = run(sys.executable, "-c", probe, RUN, NOP, "--log-size", str((1 << 30) - 1),
                "--arg", "total=1")
        self.assertLess(int(p.stdout), 256 * 1024, "KiB resident: the log was touched")


class Sockets(Temp):
    """`--arg NAME=tcp-listen:HOST:PORT` and its kin: the command makes the socket, a server graph
    serves real clients on it (the host engine, here), the listener's address is printed, and a
    Unix socket file the command bound is gone afterwards."""

    SEND_FIVE = """graph hello(s: fd, buf: buffers[1] of 16) -> (sent: i32) {
    let n = send(s, buf[0][..5])?
    sent = i32(n)
}
"""

    def serve_echo(self, spec):
        """Starts examples/echo.uring on `spec`; returns the process and the line's address."""
        proc = subprocess.Popen([UR, "run", "--engine=host", ECHO, "--arg", f"listener={spec}"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = proc.stderr.readline().decode()
        m = re.match(r"--arg listener: listening on (\S+)$", line.strip())
        if m is None:
            proc.kill()
            self.fail(f"no listening line: {line!r} {proc.communicate()}")
        return proc, m.group(1)

    def echo_through(self, clients, stop):
        try:
            for i, c in enumerate(clients):
                c.settimeout(10)
                c.sendall(b"hello %d" % i)
            for i, c in enumerate(clients):
                got = b""
                while len(got) < len(b"hello %d" % i):
                    got += c.recv(100)
                self.assertEqual(got, b"hello %d" % i)
        finally:
            for c in clients:
                c.close()
        time.sleep(0.2)
        stop.send_signal(signal.SIGINT)
        out, err = stop.communicate(timeout=30)
        self.assertEqual(stop.returncode, 130, err)
        self.assertIn(b"served = %d" % len(clients), out)
        return out

    def test_tcp_listen_on_port_0_serves_real_clients(self):
        proc, where = self.serve_echo("tcp-listen:127.0.0.1:0")
        host, port = where.removeprefix("tcp:").rsplit(":", 1)
        self.assertEqual(host, "127.0.0.1")
        self.assertNotEqual(int(port), 0)
        clients = [socket.create_connection((host, int(port))) for _ in range(3)]
        self.echo_through(clients, proc)

    def test_unix_listen_serves_and_removes_its_socket_file(self):
        path = self.path("echo.sock")
        proc, where = self.serve_echo(f"unix-listen:{path}")
        self.assertEqual(where, f"unix:{path}")
        clients = []
        for _ in range(2):
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.connect(path)
            clients.append(c)
        self.echo_through(clients, proc)
        self.assertFalse(os.path.exists(path))

    def test_an_existing_path_is_never_replaced(self):
        path = self.write("taken")
        p = run(UR, "run", "--engine=host", ECHO, "--arg", f"listener=unix-listen:{path}",
                timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"the path exists already", p.stderr)
        self.assertEqual(self.read("taken"), b"precious\n")

    def test_a_listener_in_use_and_an_unreachable_peer_are_explained(self):
        taken = socket.socket()
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        p = run(UR, "run", "--engine=host", ECHO, "--arg", f"listener=tcp-listen:127.0.0.1:{port}",
                timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"cannot listen: Address already in use", p.stderr)
        taken.close()  # nothing listens there now
        src = self.write("hello.uring", self.SEND_FIVE.encode())
        p = run(UR, "run", "--engine=host", src, "--arg", f"s=tcp-connect:127.0.0.1:{port}",
                timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"cannot connect: Connection refused", p.stderr)

    def test_tcp_and_unix_connect_hand_over_a_connected_socket(self):
        src = self.write("hello.uring", self.SEND_FIVE.encode())
        tcp = socket.socket()
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(1)
        unix_path = self.path("peer.sock")
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.bind(unix_path)
        unix.listen(1)
        for server, spec in ((tcp, f"tcp-connect:127.0.0.1:{tcp.getsockname()[1]}"),
                             (unix, f"unix-connect:{unix_path}")):
            proc = subprocess.Popen([UR, "run", "--engine=host", src, "--arg", f"s={spec}"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            server.settimeout(30)
            conn, _ = server.accept()
            conn.settimeout(10)
            got = b""
            while len(got) < 5:
                chunk = conn.recv(16)
                if not chunk:
                    break
                got += chunk
            out, err = proc.communicate(timeout=30)
            conn.close()
            self.assertEqual(proc.returncode, 0, err)
            self.assertEqual(got, b"\0" * 5)  # the zeroed buffer
            self.assertIn(b"sent = 5", out)
        tcp.close()
        unix.close()

    def test_a_socket_for_a_parameter_that_is_not_an_fd_is_refused(self):
        p = run(UR, "run", "--engine=host", NOP_CHAIN, "--arg", "n=tcp-listen:127.0.0.1:0",
                timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"not an fd parameter, so no socket is made", p.stderr)


class TemporaryFiles(Temp):
    """`uringc run FILE.uring` writes the compiled object to $TMPDIR; nothing stays there."""

    def leftovers(self):
        return [n for n in os.listdir(self.dir) if n.startswith("uringc-run")]

    def test_a_failed_write_of_the_object_is_an_error(self):
        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
        p = run(UR, "run", NOP_CHAIN, "--arg", "n=1", env={"TMPDIR": self.dir},
                preexec_fn=limit)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"cannot write the compiled object", p.stderr)
        self.assertIn(b"File too large", p.stderr)
        self.assertEqual(self.leftovers(), [])

    def test_signals_before_the_run_leave_nothing_behind(self):
        # Whatever phase a signal meets (compiling, writing, loading), nothing may stay behind
        # and a signal that ends the command ends it with 130.
        for i, sig in enumerate([signal.SIGTERM, signal.SIGINT] * 10):
            proc = subprocess.Popen([UR, "run", NOP_CHAIN, "--arg", "n=1"],
                                    env={**os.environ, "TMPDIR": self.dir},
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(0.005 * i)
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=60)
            # (-sig: the signal came before main() ran, so nothing had been made yet.)
            self.assertIn(proc.returncode, (0, 1, 130, -sig), err)
            self.assertNotIn(b"Traceback", err)
            self.assertEqual(self.leftovers(), [], f"after {sig.name} at {5 * i} ms")

    def fake_qemu_path(self):
        bin_dir = self.path("bin")
        os.mkdir(bin_dir)
        qemu = os.path.join(bin_dir, "qemu-system-x86_64")
        with open(qemu, "w") as f:
            f.write("#!/bin/sh\nexit 1\n")
        os.chmod(qemu, 0o755)
        return bin_dir + ":" + os.environ["PATH"]

    def test_a_signal_during_vm_setup_is_forwarded_and_cleaned_up(self):
        # The runner waits for the kernel cache's lock, held here: the command is between its
        # temporary files and the run. SIGTERM must reach the runner and remove them all.
        cache = self.path("cache")
        os.mkdir(cache)
        with open(os.path.join(cache, ".fetch.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            proc = subprocess.Popen(
                [UR, "run", "--vm", NOP_CHAIN, "--arg", "n=1"],
                env={**os.environ, "TMPDIR": self.dir, "URINGC_CACHE_DIR": cache,
                     "PATH": self.fake_qemu_path()},
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            deadline = time.monotonic() + 60
            while len(self.leftovers()) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertEqual(len(self.leftovers()), 2, "the object's and the manifest's folders")
            time.sleep(0.5)  # the runner is waiting on the lock now
            proc.send_signal(signal.SIGTERM)
            out, _ = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, out)
        self.assertIn(b"interrupted", out)
        self.assertNotIn(b"Traceback", out)
        self.assertEqual(self.leftovers(), [])


class NonUtf8Names(Temp):
    def test_vm_manifest_carries_any_bytes(self):
        # No qemu on PATH: the runner must read the manifest and stop with that message.
        obj = os.path.join(os.fsencode(self.dir), b"nop\xff\xfe.bpf.o")
        with open(NOP, "rb") as f, open(obj, "wb") as g:
            g.write(f.read())
        p = run(RUN, "--vm", obj, "--arg", b"x=" + obj + b":r",
                env={"PATH": self.dir, "TMPDIR": self.dir})
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn(b"qemu-system-x86_64 is not installed", p.stdout)
        self.assertNotIn(b"Traceback", p.stdout + p.stderr)


@unittest.skipUnless(VM, "boots the VM: run with --vm (CTest vm.run_cli)")
class InTheVm(Temp):
    def test_an_object_whose_name_is_not_utf8_runs(self):
        obj = os.path.join(os.fsencode(self.dir), b"nop\xff.bpf.o")
        with open(NOP, "rb") as f, open(obj, "wb") as g:
            g.write(f.read())
        p = run(RUN, "--vm", obj, "--arg", "inflight=2", "--arg", "total=10", "--mem-region",
                "4096")
        out = p.stdout + p.stderr
        self.assertEqual(p.returncode, 0, out)
        self.assertIn(b"completed = 10", out)
        self.assertIn(b"PASS uringc-run", out)


if __name__ == "__main__":
    # With --vm only the VM class runs (the host classes are unit.run_cli).
    unittest.main(argv=[sys.argv[0], "-v"] + (["InTheVm"] if VM else []))
