"""files.write_atomic / copy_atomic: a reader sees the old file or the
whole new one; a symbolic link is written through (the link kept, its
target replaced); modes are kept (or open()'s for a new file); a failed
write leaves the old file and no temporary; two writers never share a
temporary file."""

import os
import stat
import tempfile
import unittest

import support  # noqa: F401  (sys.path)
from simblas_hpl import files


class Atomic(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="sbfiles")
        self.addCleanup(__import__("shutil").rmtree, self.d, True)

    def p(self, name):
        return os.path.join(self.d, name)

    def test_symlink_written_through(self):
        files.write_atomic(self.p("target.model"), "old\n")
        os.symlink("target.model", self.p("link.model"))
        files.write_atomic(self.p("link.model"), "new\n")
        self.assertTrue(os.path.islink(self.p("link.model")))
        with open(self.p("target.model")) as f:
            self.assertEqual(f.read(), "new\n")

    def test_modes(self):
        old = os.umask(0o022)
        try:
            files.write_atomic(self.p("new"), "x")
            self.assertEqual(stat.S_IMODE(os.stat(self.p("new")).st_mode), 0o644)
            os.chmod(self.p("new"), 0o600)
            files.write_atomic(self.p("new"), "y")
            self.assertEqual(stat.S_IMODE(os.stat(self.p("new")).st_mode), 0o600)
            os.chmod(self.p("new"), 0o755)
            files.copy_atomic(self.p("new"), self.p("copy"))  # a new file: the source's mode
            self.assertEqual(stat.S_IMODE(os.stat(self.p("copy")).st_mode), 0o755)
        finally:
            os.umask(old)

    def test_read_only_target_and_source(self):
        # a file of mode 0444 is replaced (its directory is writable), as
        # before, and keeps its mode; a read-only source copies to a new file
        files.write_atomic(self.p("ro"), "old\n")
        os.chmod(self.p("ro"), 0o444)
        files.write_atomic(self.p("ro"), "new\n")
        self.assertEqual(stat.S_IMODE(os.stat(self.p("ro")).st_mode), 0o444)
        files.copy_atomic(self.p("ro"), self.p("ro-copy"))
        self.assertEqual(stat.S_IMODE(os.stat(self.p("ro-copy")).st_mode), 0o444)
        with open(self.p("ro-copy")) as f:
            self.assertEqual(f.read(), "new\n")

    def test_failure_keeps_the_old_file_and_no_temporary(self):
        files.write_atomic(self.p("f"), "old\n")

        def fails(tmp):
            with open(tmp, "w") as f:
                f.write("half")
            raise OSError(28, "No space left on device")
        with self.assertRaises(OSError):
            files.replace_atomic(self.p("f"), fails)
        self.assertEqual(os.listdir(self.d), ["f"])
        with open(self.p("f")) as f:
            self.assertEqual(f.read(), "old\n")

    def test_writers_do_not_share_a_temporary(self):
        seen = []

        def outer(tmp):
            seen.append(tmp)
            files.replace_atomic(self.p("f"), lambda t: (seen.append(t), open(t, "w").write("inner")))
            with open(tmp, "w") as f:
                f.write("outer")
        files.replace_atomic(self.p("f"), outer)
        self.assertNotEqual(seen[0], seen[1])
        with open(self.p("f")) as f:
            self.assertEqual(f.read(), "outer")


if __name__ == "__main__":
    unittest.main()
