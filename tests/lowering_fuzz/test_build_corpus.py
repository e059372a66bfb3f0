"""build_corpus.py packs exactly the programs of its own run: a second run into the same folder
with a smaller count and another seed packs its programs only, none of the first run's (the
build's corpus folder outlives a reconfigure from 520 programs back to 120). Real compiles with
the uringc named by $URINGC."""
import os
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def read_pack(path):
    """[(name, source, object)] of a URPK2 pack."""
    data = open(path, "rb").read()
    assert data.startswith(b"URPK2\n"), data[:8]
    pos, out = 6, []
    while pos < len(data):
        lens = struct.unpack_from("<IIIII", data, pos)
        pos += 20
        parts = []
        for n in lens:
            parts.append(data[pos:pos + n])
            pos += n
        out.append((parts[0].decode(), parts[1], parts[2]))
    return out


class BuildCorpus(unittest.TestCase):
    def build(self, out, seed, count):
        subprocess.run([sys.executable, os.path.join(HERE, "build_corpus.py"),
                        "--uringc", os.environ["URINGC"], "--seed", str(seed),
                        "--count", str(count), "--out", out, "--jobs", "2"],
                       check=True, capture_output=True)
        return read_pack(out)

    def test_a_smaller_run_packs_only_its_own_programs(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "corpus.pack")
            first = self.build(out, seed=1, count=3)
            self.assertEqual([n for n, _, _ in first], ["g0000", "g0001", "g0002"])
            second = self.build(out, seed=2, count=1)
            self.assertEqual([n for n, _, _ in second], ["g0000"])
            self.assertEqual(sorted(os.listdir(out + ".d")), ["g0000.bpf.o", "g0000.uring"],
                             "the first run's programs and objects are gone")
            fresh = os.path.join(tmp, "fresh")
            subprocess.run([sys.executable, os.path.join(HERE, "gen_programs.py"), "--seed", "2",
                            "--count", "1", "--out", fresh], check=True)
            self.assertEqual(second[0][1], open(os.path.join(fresh, "g0000.uring"), "rb").read())
            self.assertTrue(second[0][2].startswith(b"\x7fELF"), "the program compiled")


if __name__ == "__main__":
    unittest.main()
