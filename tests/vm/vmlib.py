"""The parts of the VM runner: fetch a kernel, pack an initramfs, boot it, read results back.

Kept apart from the command-line front end so the console parser can be unit-tested on the host
(test_vmlib.py) without booting anything.
"""
import dataclasses
import gzip
import hashlib
import os
import re
import select
import shutil
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# Debian kernels with CONFIG_IO_URING_BPF_OPS=y (see docs/testing.md), each with the kernel ABI it
# must have: "7.1" passes loop_step a `struct io_ring_ctx *`, "7.2" (7.2 and 7.3) a `struct iou_ctx *`.
# A suite name with a series (trixie-backports-7.1) pins the newest kernel of that series.
SUITES = {"sid": "7.2", "trixie-backports": "7.2", "trixie-backports-7.1": "7.1"}
# The suites that run the whole manifest when none is named; a pinned series runs its own.
DEFAULT_SUITES = ("sid", "trixie-backports")

MARK = "@@URINGC"
# Seconds a guest may take to reach its /init (the `@@URINGC KERNEL` line); about 4 s under
# software emulation. A kernel that gets no further is damaged, whatever the full time limit.
BOOT_TIMEOUT = 120
CRASH_PATTERNS = re.compile(
    r"Kernel panic|Oops:|BUG: |general protection fault|int3: 0000|Call Trace:|"
    r"watchdog: BUG: soft lockup|end Kernel panic")
GTEST_RESULT = re.compile(r"^\[\s+(OK|FAILED|SKIPPED)\s+\] (\S+)(?: \(\d+ ms\))?$")


# qemu's words when /dev/kvm exists but cannot run this guest (nested virtualization without the
# CPU features the kernel's decompressor uses, or MSRs the host refuses).
KVM_UNUSABLE = re.compile(rb"KVM internal error|kvm_buf_set_msrs|failed to set MSR|"
                          rb"Could not access KVM kernel module|failed to initialize kvm")


class VmError(Exception):
    """The VM could not produce test results (no qemu, no kernel, crash, time-out)."""


class KvmUnusable(VmError):
    """KVM refused or failed to run the guest; software emulation still can."""


# Set once KVM has failed in this process, so later boots go straight to software emulation.
_kvm_failed = False


@dataclasses.dataclass
class GuestTest:
    name: str
    argv: list
    env: dict
    # Data files to copy into the guest: [(host path, absolute guest path)] (uringc run --vm).
    files: list = dataclasses.field(default_factory=list)

    @staticmethod
    def from_json(obj):
        return GuestTest(obj["name"], list(obj["argv"]), dict(obj.get("env", {})),
                         [tuple(f) for f in obj.get("files", [])])


@dataclasses.dataclass
class TestResult:
    name: str
    exit_code: int
    output: list
    cases: list  # [(status, case name)] from GoogleTest output; empty for plain programs
    seconds: float | None = None  # guest time from BEGIN to END, when both carry the uptime


@dataclasses.dataclass
class Console:
    results: list
    done_status: int | None  # the guest's overall status, None if it never finished
    crash: str | None        # the first line that shows the guest kernel crashed
    booted: bool = True      # whether /init ran (the KERNEL line)


def find_qemu():
    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        raise VmError("qemu-system-x86_64 is not installed: run scripts/install-deps.sh "
                      "(Debian package qemu-system-x86)")
    return qemu


def fetch_kernel(suite):
    """Returns (kernel folder, release) for the suite's current kernel, downloading if needed.

    Raises VmError when the kernel's ABI (read from its BTF by fetch-kernel.sh) is not the one the
    suite stands for: a 7.1 suite that booted a 7.2 kernel would prove nothing about 7.1."""
    # Its messages are printed as they come (a first download takes a while: it says how far).
    proc = subprocess.Popen([os.path.join(HERE, "fetch-kernel.sh"), suite],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="surrogateescape")
    said = []
    for line in proc.stderr:
        print(line.rstrip("\n"), flush=True)
        said.append(line.strip())
    out = proc.stdout.read()
    proc.wait()
    if proc.returncode != 0:
        raise VmError(f"cannot fetch a kernel from {suite}: "
                      + ([ln for ln in said if ln] or ["fetch-kernel.sh failed"])[-1])
    folder = out.strip()
    release = read_cached(folder, "release")
    abi_file = os.path.join(folder, "abi")
    if os.path.exists(abi_file):  # absent only where bpftool was missing and a config vouched
        abi = read_cached(folder, "abi")
        if suite in SUITES and abi != SUITES[suite]:
            raise VmError(f"{release} has the {abi} kernel ABI, but suite {suite} stands for "
                          f"{SUITES[suite]} (cache: {folder})")
    return folder, release


def read_cached(folder, name):
    """A one-line file of the kernel cache; a damaged (empty, binary) one is named as such."""
    with open(os.path.join(folder, name), "rb") as f:
        text = f.read(200).decode("utf-8", "replace").strip()
    if not text or not text.isprintable():
        raise VmError(f"the kernel cache {folder} is damaged: `{name}` holds {text!r}; "
                      f"delete {folder} to fetch the kernel again")
    return text


def verify_cache(folder):
    """Checks the cached files against the checksums fetch-kernel.sh recorded (`sha256sums`).

    Raises VmError naming the folder when one differs. A cache from before checksums (read-only,
    so fetch-kernel.sh could not add them) has none to check."""
    sums = os.path.join(folder, "sha256sums")
    if not os.path.exists(sums):
        return
    with open(sums, "rb") as f:
        entries = [line.split(None, 1) for line in f.read().splitlines() if line.strip()]
    for digest, name in entries:
        name = name.lstrip(b"*").decode("utf-8", "surrogateescape")
        h = hashlib.sha256()
        try:
            with open(os.path.join(folder, name), "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
        except OSError as e:
            raise VmError(f"the kernel cache {folder} is damaged ({name}: {e.strerror}); "
                          f"delete {folder} to fetch the kernel again") from None
        if h.hexdigest().encode() != digest:
            raise VmError(f"the kernel cache {folder} is damaged ({name} does not match the "
                          f"checksum recorded when it was fetched); delete {folder} or run "
                          "again to fetch the kernel again")


def shared_libraries(binary):
    """The shared libraries (absolute paths) the dynamic loader needs for binary, via ldd."""
    proc = subprocess.run(["ldd", binary], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if "not a dynamic executable" in proc.stdout:
        return []
    libs = []
    for line in proc.stdout.splitlines():
        m = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
        if m:
            libs.append(m.group(1))
        elif "not found" in line:
            raise VmError(f"{binary}: {line.strip()}")
    return libs


def init_script(tests, guest_timeout, modules=()):
    """The guest's /init: mount, load the modules, run each test between markers, report, power
    off. A module that does not load is said on the console; the tests that need it then fail,
    as build_initramfs sets URINGC_REQUIRE_UBLK=1 whenever it packs the module."""
    lines = [
        "#!/bin/busybox sh",
        "/bin/busybox --install -s /bin",
        "export PATH=/bin:/tests",
        "mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev",
        "mount -t tmpfs tmp /tmp; mount -t bpf bpf /sys/fs/bpf 2>/dev/null",
        "ulimit -l unlimited",
    ]
    for m in modules:
        guest = "/lib/modules/" + os.path.basename(m)
        lines.append(f"insmod {guest} || echo \"insmod {guest} failed\"")
    lines += [
        "status=0",
        f'echo "{MARK} KERNEL $(uname -r)"',
    ]
    for t in tests:
        env = " ".join(f"{k}={shell_quote(v)}" for k, v in sorted(t.env.items()))
        argv = " ".join(shell_quote(a) for a in t.argv)
        lines += [
            f'echo "{MARK} BEGIN {t.name} $(cut -d" " -f1 /proc/uptime)"',
            f"env {env} timeout -s KILL {int(guest_timeout)} {argv} </dev/null 2>&1",
            "rc=$?",
            f'echo "{MARK} END {t.name} $rc $(cut -d" " -f1 /proc/uptime)"',
            '[ "$rc" = 0 ] || status=1',
        ]
    lines += [f'echo "{MARK} DONE $status"', "sync", "poweroff -f"]
    return "\n".join(lines) + "\n"


def shell_quote(s):
    return "'" + str(s).replace("'", "'\\''") + "'"


def build_initramfs(tests, out_path, guest_timeout, modules=()):
    """Packs busybox, every test binary and its libraries, the kernel modules to load (host
    paths, loaded in order) and /init into a gzip'd cpio."""
    busybox = "/bin/busybox"
    if not os.path.exists(busybox) or shared_libraries(busybox):
        raise VmError("a static busybox is needed at /bin/busybox: install busybox-static")
    root = tempfile.mkdtemp(prefix="uringc-initramfs-")
    try:
        for d in ("bin", "proc", "sys", "dev", "tmp", "tests"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        shutil.copy2(busybox, os.path.join(root, "bin/busybox"))
        guest_tests = []
        for t in tests:
            binary = t.argv[0]
            if not os.path.isfile(binary):
                raise VmError(f"test binary {binary} does not exist (build first)")
            dest = os.path.join(root, "tests", os.path.basename(binary))
            shutil.copy2(binary, dest)
            for lib in shared_libraries(binary):
                lib_dest = os.path.join(root, lib.lstrip("/"))
                os.makedirs(os.path.dirname(lib_dest), exist_ok=True)
                shutil.copy2(os.path.realpath(lib), lib_dest)
            copy_files(root, t.files)
            # With ublk_drv packed, the ublk tests must find the driver, not skip.
            env = dict(t.env, URINGC_REQUIRE_UBLK="1") if modules else t.env
            guest_tests.append(GuestTest(t.name, ["/tests/" + os.path.basename(binary)]
                                         + t.argv[1:], env))
        copy_files(root, [(m, "/lib/modules/" + os.path.basename(m)) for m in modules])
        # Paths may hold any bytes (surrogate-escaped since the manifest was read): keep them.
        with open(os.path.join(root, "init"), "w", encoding="utf-8",
                  errors="surrogateescape") as f:
            f.write(init_script(guest_tests, guest_timeout, modules))
        os.chmod(os.path.join(root, "init"), 0o755)
        names = subprocess.run(["find", ".", "-print0"], cwd=root, check=True,
                               stdout=subprocess.PIPE).stdout
        archive = subprocess.run(["cpio", "--null", "-o", "-H", "newc", "--quiet"], cwd=root,
                                 input=names, stdout=subprocess.PIPE, check=True).stdout
        with gzip.open(out_path, "wb", compresslevel=1) as f:
            f.write(archive)
    finally:
        shutil.rmtree(root)


def is_executable_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF" and os.access(path, os.X_OK)


def copy_binary(root, binary, dest):
    """Copies an executable to dest without its debug information (a tool a test runs in the
    guest, like uringc or fio), and the shared libraries it needs to their own paths."""
    if subprocess.run(["strip", "--strip-debug", "-o", dest, binary],
                      stderr=subprocess.DEVNULL).returncode != 0:
        shutil.copy2(binary, dest)  # no binutils: the whole file
    for lib in shared_libraries(binary):
        lib_dest = os.path.join(root, lib.lstrip("/"))
        if not os.path.exists(lib_dest):
            os.makedirs(os.path.dirname(lib_dest), exist_ok=True)
            shutil.copy2(os.path.realpath(lib), lib_dest)


def copy_files(root, files):
    """Copies (host path, guest path) pairs into the initramfs tree at root; an executable
    brings its shared libraries."""
    for host, guest in files:
        if not os.path.isabs(guest) or ".." in guest.split("/"):
            raise VmError(f"guest path {guest} must be absolute and stay inside the guest")
        if not os.path.isfile(host):
            raise VmError(f"file {host} for the guest does not exist")
        dest = os.path.join(root, guest.lstrip("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if is_executable_elf(host):
            copy_binary(root, host, dest)
        else:
            shutil.copy2(host, dest)


def use_kvm():
    return not _kvm_failed and os.access("/dev/kvm", os.R_OK | os.W_OK)


def qemu_command(qemu, kernel, initrd, kvm):
    # Under software emulation the cloud kernel sometimes oopses with -smp 2; -smp 1 did not.
    cmd = [qemu, "-m", "2048", "-smp", "2" if kvm else "1", "-nographic", "-no-reboot",
           "-kernel", kernel, "-initrd", initrd,
           "-append", "console=ttyS0 quiet panic=-1 oops=panic loglevel=4"]
    if kvm:
        cmd[1:1] = ["-enable-kvm", "-cpu", "host"]
    return cmd


def boot(cmd, timeout, boot_timeout=BOOT_TIMEOUT):
    """Runs qemu; returns its console lines. Raises VmError if it overruns timeout seconds, or
    if its kernel has not started /init (the KERNEL line) within boot_timeout seconds."""
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    start = time.monotonic()
    deadline = start + timeout
    kernel = cmd[cmd.index("-kernel") + 1] if "-kernel" in cmd else "the kernel"
    data = b""
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise VmError(f"the guest did not finish within {timeout:.0f} s; last output:\n"
                              + tail(data))
            if time.monotonic() - start > boot_timeout and KERNEL_LINE not in data:
                raise VmError(f"the guest's kernel did not reach /init within {boot_timeout:.0f}"
                              f" s: {kernel} does not boot and may be damaged (delete "
                              f"{os.path.dirname(kernel)} to fetch it again); last output:\n"
                              + tail(data))
            ready, _, _ = select.select([proc.stdout], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                data += chunk
                m = KVM_UNUSABLE.search(data)
                if m:
                    raise KvmUnusable(m.group(0).decode())
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return data.decode("utf-8", "replace").replace("\r", "").splitlines()


KERNEL_LINE = f"{MARK} KERNEL".encode()


def tail(data, n=20):
    """The last n lines, with control characters (the firmware's terminal codes) escaped."""
    lines = data.decode("utf-8", "replace").replace("\r", "").splitlines()[-n:]
    return "\n".join("".join(c if c.isprintable() or c == "\t" else f"\\x{ord(c):02x}"
                              for c in line) for line in lines)


def parse_console(lines):
    """Splits the console into per-test results, the guest's final status and any crash."""
    results, current, done, crash, booted = [], None, None, None, False
    began = None
    for line in lines:
        if crash is None and CRASH_PATTERNS.search(line):
            crash = line.strip()
        idx = line.find(MARK + " ")
        if idx >= 0:
            words = line[idx + len(MARK) + 1:].split()
            if len(words) >= 2 and words[0] == "BEGIN":
                current = TestResult(words[1], -1, [], [])
                began = uptime(words[2:])
                continue
            if len(words) >= 3 and words[0] == "END" and current and words[1] == current.name:
                current.exit_code = int(words[2]) if words[2].lstrip("-").isdigit() else -1
                ended = uptime(words[3:])
                if began is not None and ended is not None:
                    current.seconds = ended - began
                results.append(current)
                current = None
                continue
            if len(words) >= 2 and words[0] == "DONE":
                done = int(words[1]) if words[1].isdigit() else 1
                continue
            if words and words[0] == "KERNEL":
                booted = True
                continue
        if current is not None:
            current.output.append(line)
            m = GTEST_RESULT.match(line.strip())
            if m:
                current.cases.append((m.group(1), m.group(2)))
    if current is not None:
        results.append(current)  # began but never ended: exit_code stays -1
    return Console(results, done, crash, booted)


def uptime(words):
    """The guest's /proc/uptime seconds a BEGIN or END line ends with, or None."""
    try:
        return float(words[0]) if words else None
    except ValueError:
        return None


def verdicts(result):
    """[(verdict, name)] for a test: one per GoogleTest case, or one for a plain program."""
    if result.cases:
        out = [({"OK": "PASS", "FAILED": "FAIL", "SKIPPED": "SKIP"}[s], f"{result.name}: {c}")
               for s, c in result.cases]
        # A crash after the last case, or a non-zero exit with every case passing, still fails.
        if result.exit_code != 0 and all(v != "FAIL" for v, _ in out):
            out.append(("FAIL", f"{result.name}: exited with status {result.exit_code}"))
        return out
    if result.exit_code == -1:
        return [("FAIL", f"{result.name}: did not finish")]
    return [("PASS" if result.exit_code == 0 else "FAIL", result.name)]


def run_suite(suite, tests, timeout, retries, boot_timeout=BOOT_TIMEOUT, consoles=None):
    """Boots the suite's kernel with tests; prints results; True when every test passed. The
    guest's Console is appended to `consoles` when given (its results carry exit codes)."""
    qemu = find_qemu()
    kernel_dir, release = fetch_kernel(suite)
    with tempfile.TemporaryDirectory(prefix="uringc-vm-") as tmp:
        initrd = os.path.join(tmp, "initrd.gz")
        build_initramfs(tests, initrd, guest_timeout=max(10, timeout - 30),
                        modules=kernel_modules(kernel_dir))
        kernel = os.path.join(kernel_dir, "vmlinuz")
        for attempt in range(retries + 1):
            start = time.monotonic()
            verify_cache(kernel_dir)
            lines = boot_with_fallback(qemu, kernel, initrd, timeout, release, boot_timeout)
            console = parse_console(lines)
            if console.crash is None or attempt == retries:
                break
            print(f"[{release}] guest kernel crashed ({console.crash}); booting again", flush=True)
        elapsed = time.monotonic() - start
    if consoles is not None:
        consoles.append(console)
    return report(release, tests, console, lines, elapsed, kernel_dir)


def kernel_modules(kernel_dir):
    """The modules of the kernel cache the guest loads: ublk_drv.ko when fetch-kernel.sh kept it
    (its `no-ublk` says why not; the ublk tests then skip, saying that /dev/ublk-control is
    missing)."""
    ublk = os.path.join(kernel_dir, "ublk_drv.ko")
    return [ublk] if os.path.isfile(ublk) else []


def boot_with_fallback(qemu, kernel, initrd, timeout, release, boot_timeout=BOOT_TIMEOUT):
    """Boots with KVM where it works, otherwise (or once it has failed) with software emulation."""
    global _kvm_failed
    if use_kvm():
        try:
            return boot(qemu_command(qemu, kernel, initrd, kvm=True), timeout, boot_timeout)
        except KvmUnusable as e:
            _kvm_failed = True
            print(f"[{release}] /dev/kvm exists but cannot run the guest ({e}); "
                  "using software emulation", flush=True)
    return boot(qemu_command(qemu, kernel, initrd, kvm=False), timeout, boot_timeout)


def report(release, tests, console, lines, elapsed, kernel_dir="the kernel cache"):
    """Prints every test's output and verdicts, prefixed with the kernel; True if all passed."""
    prefix = f"[{release}]"
    ok = True
    passed = failed = skipped = 0
    for result in console.results:
        for line in result.output:
            print(f"{prefix}   {line}")
        for verdict, name in verdicts(result):
            print(f"{prefix} {verdict} {name}", flush=True)
            passed += verdict == "PASS"
            failed += verdict == "FAIL"
            skipped += verdict == "SKIP"
    # Where the guest's time went, for whoever trims a suite (one test: the total says it).
    for result in console.results if len(console.results) > 1 else []:
        if result.seconds is not None:
            print(f"{prefix} TIME {result.name}: {result.seconds:.1f} s")
    missing = [t.name for t in tests if t.name not in {r.name for r in console.results}]
    for name in missing:
        print(f"{prefix} FAIL {name}: never ran in the guest")
        failed += 1
    if console.crash:
        print(f"{prefix} ERROR: the guest kernel crashed: {console.crash}")
        ok = False
    if not console.booted and not console.crash:
        print(f"{prefix} ERROR: the guest stopped before its kernel reached /init: the kernel in "
              f"{kernel_dir} may be damaged (delete the folder to fetch it again); last output:")
        for line in lines[-20:]:
            print(f"{prefix}   {line}")
        ok = False
    elif console.done_status is None:
        print(f"{prefix} ERROR: the guest stopped before it finished; last output:")
        for line in lines[-20:]:
            print(f"{prefix}   {line}")
        ok = False
    elif console.done_status != 0:
        ok = False
    ok = ok and failed == 0 and passed > 0
    print(f"{prefix} {passed} passed, {failed} failed, {skipped} skipped "
          f"({elapsed:.1f} s boot and tests)", flush=True)
    return ok
