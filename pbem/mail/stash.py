"""Where ``pbem inbox`` keeps the bytes of the saves one scan finds until it verifies
them: in memory up to a bound, past it in an anonymous temporary file (gone when the
scan ends, never a file in the home). A mailbox of thousands of saves then costs the
scan a few small records per save, not every save at once; a save is read back, and
parsed again, only when its game's turn comes."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from types import TracebackType

# Held in memory up to this many bytes: a scan of a few saves never touches the disk.
IN_MEMORY = 4 * 1024 * 1024


class StashError(OSError):
    """The temporary file could not be written or read (no room, say): the system's
    refusal, not the mail's, so never a line about a message (pbem.cli words it)."""


@dataclass(frozen=True)
class Stored:
    """Where one save's bytes lie in the stash."""

    offset: int
    size: int


class Stash:
    """Bytes put once and read back by their :class:`Stored` place, in a spooled
    temporary file; use as a context manager (the file is dropped at the end)."""

    def __init__(self, in_memory: int = IN_MEMORY) -> None:
        self._file = tempfile.SpooledTemporaryFile(max_size=in_memory)  # noqa: SIM115
        self._end = 0

    def put(self, data: bytes) -> Stored:
        try:
            self._file.seek(self._end)
            self._file.write(data)
        except OSError as exc:
            raise _refused(exc) from exc
        place = Stored(self._end, len(data))
        self._end += len(data)
        return place

    def get(self, place: Stored) -> bytes:
        try:
            self._file.seek(place.offset)
            return self._file.read(place.size)
        except OSError as exc:
            raise _refused(exc) from exc

    def __enter__(self) -> Stash:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._file.close()


def _refused(exc: OSError) -> StashError:
    """The system's refusal, naming the file (no path: it has none)."""
    return StashError(exc.errno, exc.strerror or str(exc), "the scan's temporary file")
