"""Tests of wheel_version: python3 -m unittest discover -s python -p '*_test.py'."""

import unittest

from wheel_version import DEV_TAG, TagError, pep440


class TestTagToPEP440(unittest.TestCase):
    def test_release_tag_is_its_pep440_version(self):
        cases = [
            ("v1.2.0", "1.2.0"),
            ("v0.0.1", "0.0.1"),
            ("v10.20.30", "10.20.30"),
            (DEV_TAG, "0.0.0.dev0"),
            ("v1.2.0-dev.3", "1.2.0.dev3"),
            ("v1.2.0-alpha", "1.2.0a0"),
            ("v1.2.0-alpha.2", "1.2.0a2"),
            ("v1.2.0-a.2", "1.2.0a2"),
            ("v1.2.0-beta.1", "1.2.0b1"),
            ("v1.2.0-b1", "1.2.0b1"),
            ("v1.2.0-rc.1", "1.2.0rc1"),
            ("v1.2.0-rc1", "1.2.0rc1"),
            ("v1.2.0-rc", "1.2.0rc0"),
            ("v1.2.0+ci.7", "1.2.0+ci.7"),
            ("v1.2.0+Build-5", "1.2.0+build.5"),
            ("v1.2.0-rc.1+ci.7", "1.2.0rc1+ci.7"),
        ]
        for tag, want in cases:
            with self.subTest(tag=tag):
                self.assertEqual(pep440(tag), want)

    def test_tag_without_a_pep440_form_is_refused(self):
        cases = [
            ("1.2.0", "semantic version tag"),
            ("v1.2", "semantic version tag"),
            ("v01.2.0", "semantic version tag"),
            ("v1.2.0-", "semantic version tag"),
            ("v1.2.0 ", "semantic version tag"),
            ("", "semantic version tag"),
            ("v1.2.0-preview.1", "no PEP 440 form"),
            ("v1.2.0-rc.1.2", "no PEP 440 form"),
            ("v1.2.0-rc.01", "no PEP 440 form"),
            ("v1.2.0-alpha.beta", "no PEP 440 form"),
            ("v1.2.0+a--b", "empty part"),
            ("v1.2.0+a.", "empty part"),
        ]
        for tag, words in cases:
            with self.subTest(tag=tag):
                with self.assertRaises(TagError) as cm:
                    pep440(tag)
                self.assertIn(words, str(cm.exception))


if __name__ == "__main__":
    unittest.main()
