"""Output helpers: writing a file atomically, and what is never replaced."""

from __future__ import annotations

import os
import stat
import threading

from auditor.render import write_atomic


def test_a_file_is_replaced_whole_keeping_its_mode(tmp_path):
    out = tmp_path / "report.html"
    out.write_text("old")
    out.chmod(0o640)
    write_atomic(out, b"new")
    assert out.read_bytes() == b"new" and stat.S_IMODE(out.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left


def test_a_device_or_a_pipe_is_written_to_not_replaced(tmp_path):
    """`-o /dev/null` (or a named pipe) gets the bytes; the device stays a device."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, b"the page")
    reader.join(10)
    assert got == [b"the page"] and stat.S_ISFIFO(fifo.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]
