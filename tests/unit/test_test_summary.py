"""tools/test_summary.py reads the JUnit XML pytest really writes (a tiny suite run in a subprocess)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tools.test_summary import MESSAGE_CHARS, render

SUITE = textwrap.dedent('''
    import pytest

    def test_passes():
        assert True

    def test_cell():
        notes = ["TerminateJob by aiobotocore/2 at 04:49:05 (try 2, deferred)"]
        assert not notes, "BATCH-W2-ours-deferrable: 1 cancels, expected 0\\n" + "\\n".join(notes)

    def test_long():
        raise RuntimeError("x" * 5000)

    @pytest.fixture
    def broken():
        raise OSError("port 8080 taken")

    def test_setup_error(broken):
        pass
''')


def _lane_report(tmp_path, name: str):
    (tmp_path / f"test_{name}.py").write_text(SUITE)
    folder = tmp_path / "results"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / f"test_{name}.py"),
                    f"--junitxml={folder / name}.xml"], capture_output=True, cwd=tmp_path, check=False)
    return folder


def test_every_failure_and_error_is_printed_with_its_lane_and_message(tmp_path):
    folder = _lane_report(tmp_path, "lane")

    text, count = render(folder)

    assert count == 3, text
    assert text.startswith("test summary: 3 failed test(s) in 1 lane report(s)")
    assert "[lane] FAILED test_lane::test_cell\n    AssertionError: BATCH-W2-ours-deferrable: 1 cancels" in text
    assert "    TerminateJob by aiobotocore/2 at 04:49:05 (try 2, deferred)" in text  # later lines indented
    assert "FAILED test_lane::test_setup_error" in text and "port 8080 taken" in text
    assert "test_passes" not in text


def test_a_long_message_is_capped(tmp_path):
    text, _ = render(_lane_report(tmp_path, "lane"))

    long_line = next(line for line in text.splitlines() if "RuntimeError" in line)
    assert long_line.endswith(" [...]") and len(long_line) < MESSAGE_CHARS + 40


def test_no_reports_and_a_truncated_report_are_said(tmp_path):
    assert render(tmp_path) == (f"test summary: no JUnit reports in {tmp_path}", 0)
    (tmp_path / "killed.xml").write_text("<testsuites><testsuite><testcase")

    text, count = render(tmp_path)

    assert count == 0 and "[killed] unreadable report" in text


def test_a_message_of_many_lines_keeps_its_head(tmp_path):
    from tools.test_summary import MESSAGE_LINES

    (tmp_path / "test_many.py").write_text(
        "def test_many():\n    raise AssertionError('\\n'.join(f'line {i}' for i in range(200)))\n")
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_many.py",
                    "--junitxml=results/many.xml"], capture_output=True, cwd=tmp_path, check=False)

    text, count = render(tmp_path / "results")

    assert count == 1 and "    AssertionError: line 0\n    line 1\n" in text
    assert f"line {MESSAGE_LINES - 1}\n" in text and f"line {MESSAGE_LINES}\n" not in text
    assert text.endswith(f"[... {200 - MESSAGE_LINES} more lines]")
