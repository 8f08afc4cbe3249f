"""The archive format of the emulator's measured SFU tables
(lib/Emulator/data/*.tar.xz, unpacked by lib/Emulator/Ex2Tables.cmake):
named byte blobs in an xz tar with no timestamps or owners, so that the
same tables always give the same bytes. Used by scripts/pack-ex2-tables.py
and scripts/pack-lg2-table.py.
"""
import io
import os
import tarfile


def write_archive(dst, members, tool):
    """Writes `members` ((name, bytes) pairs) to the archive `dst` and
    prints what `tool` wrote."""
    with tarfile.open(dst, "w:xz", preset=9) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    print("%s: wrote %s (%d bytes)" % (tool, dst, os.path.getsize(dst)))
