"""The results file: an append-only JSON Lines store of records, with repair and a lock."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter
from .grid import Grid


class ResultFile:
    """An append-only JSON Lines file of records, one line per point.

    Lines are written whole by one ``write`` and made durable with ``fsync``;
    a last line cut short (the process was killed mid-write) is detected by
    :meth:`read` and, with ``repair=True``, removed before anything is appended.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     results = ResultFile(os.path.join(tmp, "r.jsonl"))
    ...     with results:
    ...         results.append({"key": "a", "metrics": {}})
    ...     with open(results.path, "a") as f:
    ...         _ = f.write('{"key": "b", "met')          # a write cut short
    ...     records, dropped = results.read(repair=True)
    ...     lines = results.path.read_text().count("\\n")
    >>> [r["key"] for r in records], dropped, lines
    (['a'], 17, 1)
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    def exists(self) -> bool:
        return self.path.exists() and self.path.stat().st_size > 0

    def read(self, *, repair: bool = False) -> tuple[list[dict[str, Any]], int]:
        """The complete records, and the bytes of a partial last line (removed if ``repair``)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return [], 0
        except OSError as exc:
            raise InvalidParameter(f"results file {str(self.path)!r} cannot be read "
                                   f"({exc.strerror})") from None
        lines = data.split(b"\n")
        tail = lines.pop()                    # b"" when the file ends with a newline
        records = [self._parse(line, n) for n, line in enumerate(lines, start=1) if line.strip()]
        dropped = 0
        if tail:
            try:
                record = self._parse(tail, len(lines) + 1)
            except InvalidParameter:
                dropped = len(tail)
                if repair:
                    os.truncate(self.path, len(data) - len(tail))
            else:                             # complete but for its newline
                records.append(record)
                if repair:
                    with open(self.path, "ab") as f:
                        f.write(b"\n")
        return records, dropped

    def _parse(self, line: bytes, number: int) -> dict[str, Any]:
        try:
            record = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            record = None
        if not isinstance(record, dict) or not isinstance(record.get("key"), str):
            raise InvalidParameter(f"{self.path}: line {number} is not a sweep record; this "
                                   "is not a posproof sweep results file (or it was edited): "
                                   "fix that line or pass another --out")
        return record

    def open(self) -> ResultFile:
        """Open for appending, with an exclusive lock (one sweep writes a file at a time)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise InvalidParameter(f"results file {str(self.path)!r} cannot be written "
                                   f"({exc.strerror}); pass a writable --out") from None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no advisory lock
            fcntl = None
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise InvalidParameter(f"results file {str(self.path)!r} is being written by "
                                       "another sweep; wait for it or pass another --out"
                                       ) from None
        self._fd = fd
        return self

    def append(self, record: Mapping[str, Any]) -> None:
        """Append one record as one line: a single write, then fsync."""
        if self._fd is None:
            raise InvalidParameter("the results file is not open; use it as a context manager")
        data = (json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> ResultFile:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_records(path: str | os.PathLike[str], grid: Grid | None = None
                 ) -> list[dict[str, Any]]:
    """The complete records of a results file (of ``grid``'s points only, when given),
    in grid order (else file order); a partial last line is ignored, the file untouched.

    >>> read_records("missing.jsonl")
    []
    """
    records, _ = ResultFile(path).read(repair=False)
    if grid is None:
        return records
    keys = grid.keys
    return sorted((r for r in records if r["key"] in keys), key=lambda r: r.get("index", 0))
