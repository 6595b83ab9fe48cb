"""differences.changes: the one formatter of 'what old -> new' that the
refusals of a spread run, a study and a tune use."""

import unittest

from simblas_hpl.differences import changes


class Changes(unittest.TestCase):
    def test_the_same_is_nothing(self):
        self.assertEqual(changes({"a": 1, "b": {"c": 2}}, {"b": {"c": 2}, "a": 1}), [])

    def test_values_hashes_and_nesting(self):
        was = {"nb": 128, "model_sha256": "a" * 64, "machine": {"speedup": None, "n": 5}, "gone": 1}
        now = {"nb": 100, "model_sha256": "b" * 64, "machine": {"speedup": 2.0, "n": 5}, "new": "x"}
        self.assertEqual(changes(was, now), [
            "gone 1 -> None",
            "machine speedup None -> 2.0",
            f"the content of its model file (model_sha256 {'a' * 12} -> {'b' * 12})",
            "nb 128 -> 100",
            "new None -> 'x'"])

    def test_a_hash_that_appears(self):
        self.assertEqual(changes({"hosts_sha256": None}, {"hosts_sha256": "c" * 64}),
                         [f"the hosts its ranks run on (hosts_sha256 None -> {'c' * 12})"])

    def test_names_by_path(self):
        name = lambda path: None if path[-1] == "hidden" else "--" + "-".join(path)
        self.assertEqual(changes({"m": {"a_b": 1, "hidden": 1}}, {"m": {"a_b": 2, "hidden": 2}}, name),
                         ["--m-a_b 1 -> 2"])


if __name__ == "__main__":
    unittest.main()
