"""scripts/debian-mirror.sh against apt configurations of our own (APT_CONFIG pointing at
temporary sources): the mirror comes from the sources apt has, in either format, third-party
sources are passed over, the override variables win, and with no Debian source it says so and
falls back to deb.debian.org. apt itself parses the sources; nothing is downloaded."""
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "debian-mirror.sh")


def codename():
    with open("/etc/os-release") as f:
        for line in f:
            if line.startswith("VERSION_CODENAME="):
                return line.split("=", 1)[1].strip().strip('"') or "bookworm"
    return "bookworm"


class DebianMirror(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="uringc-apt-")
        self.list = os.path.join(self.tmp.name, "sources.list")
        self.parts = os.path.join(self.tmp.name, "sources.list.d")
        os.makedirs(self.parts)
        self.conf = os.path.join(self.tmp.name, "apt.conf")
        with open(self.conf, "w") as f:
            f.write(f'Dir::Etc::sourcelist "{self.list}";\nDir::Etc::sourceparts "{self.parts}";\n')
        self.write_list("")
        self.c = codename()

    def tearDown(self):
        self.tmp.cleanup()

    def write_list(self, text):
        with open(self.list, "w") as f:
            f.write(text)

    def write_part(self, name, text):
        with open(os.path.join(self.parts, name), "w") as f:
            f.write(text)

    def mirror(self, kind, **env):
        e = {k: v for k, v in os.environ.items() if not k.startswith("URINGC_DEBIAN")}
        e.update(env, APT_CONFIG=self.conf)
        p = subprocess.run([SCRIPT, kind], capture_output=True, text=True, env=e, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.strip(), p.stderr

    def test_one_line_sources(self):
        self.write_list(f"deb http://mirror.example.org/debian {self.c} main\n"
                        f"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
                        f"http://sec.example.org/debian-security {self.c}-security main\n")
        self.assertEqual(self.mirror("archive")[0], "http://mirror.example.org/debian")
        self.assertEqual(self.mirror("security")[0], "http://sec.example.org/debian-security")

    def test_deb822_sources_and_third_party_ones_passed_over(self):
        self.write_part("nodesource.sources", "Types: deb\nURIs: https://deb.nodesource.com/node_20.x"
                        "\nSuites: nodistro\nComponents: main\n")
        self.write_part("debian.sources", "Types: deb\nURIs: http://cache.local:3142/debian/\n"
                        f"Suites: {self.c} {self.c}-updates\nComponents: main\n")
        out, err = self.mirror("archive")
        self.assertEqual(out, "http://cache.local:3142/debian")
        # No security source: a mirror of .../debian serves .../debian-security beside it.
        out, err = self.mirror("security")
        self.assertEqual(out, "http://cache.local:3142/debian-security")
        self.assertIn("no source", err)

    def test_the_variables_win(self):
        self.write_list(f"deb http://mirror.example.org/debian {self.c} main\n")
        self.assertEqual(self.mirror("archive", URINGC_DEBIAN_MIRROR="http://mine/debian/")[0],
                         "http://mine/debian")
        self.assertEqual(
            self.mirror("security", URINGC_DEBIAN_SECURITY_MIRROR="http://mine/sec")[0],
            "http://mine/sec")

    def test_no_debian_source_falls_back_and_says_so(self):
        out, err = self.mirror("archive")
        self.assertEqual(out, "http://deb.debian.org/debian")
        self.assertIn("URINGC_DEBIAN_MIRROR", err)
        out, err = self.mirror("security")
        self.assertEqual(out, "http://deb.debian.org/debian-security")
        self.assertIn("URINGC_DEBIAN_SECURITY_MIRROR", err)

    def test_usage(self):
        p = subprocess.run([SCRIPT, "elsewhere"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("usage", p.stderr)


if __name__ == "__main__":
    unittest.main()
