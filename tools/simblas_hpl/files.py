"""Reading and writing files."""

import hashlib
import os
import shutil
import stat
import tempfile


def read_text(path):
    """The file's text ('' when it cannot be read)."""
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def tail_lines(text, n=25):
    lines = text.rstrip("\n").splitlines()
    return "\n".join(lines[-n:])


def sha256_file(path, h=None):
    """The file's SHA-256 (hex); with h, update h with it and return h."""
    own = h is None
    h = h or hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest() if own else h


def sha256_of(data):
    """SHA-256 (hex) of a text or bytes; None for None."""
    return None if data is None else hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


_FILE_SHA = {}


def file_sha256(path):
    """The file's SHA-256 (hex), None when it cannot be read; read once
    while its size and modification time stay (a study's many points)."""
    try:
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_size, st.st_mtime_ns, st.st_ino)
        if key not in _FILE_SHA:
            _FILE_SHA[key] = sha256_file(path)
        return _FILE_SHA[key]
    except (OSError, TypeError):
        return None


def write_atomic(path, text):
    """Write text to path as replace_atomic does: a reader sees the old file
    or the whole new one."""
    def write(tmp):
        with open(tmp, "w") as f:
            f.write(text)
    replace_atomic(path, write)


def copy_atomic(src, path):
    """Copy src to path as write_atomic writes, with path's permissions when
    it exists, else src's."""
    def write(tmp):
        shutil.copyfile(src, tmp)
        shutil.copymode(path if os.path.exists(path) else src, tmp)
    replace_atomic(path, write)


def _umask():
    """The process's umask, read without changing it (os.umask sets it, for
    every thread, meanwhile)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def replace_atomic(path, write):
    """write(TMP), a file of its own beside path (two writers never share
    one), flushed to the disk, then renamed to path: a reader, or a crash,
    sees the old file or the whole new one.  A symbolic link is written
    through (its target replaced, the link kept); a new file gets the mode
    open() would give it, an existing one keeps its own.  TMP removed on
    failure."""
    target = os.path.realpath(path)
    d = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".new", dir=d)
    os.close(fd)
    try:
        try:
            mode = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            mode = None  # open()'s: 0666 less the umask, or what write() set (copy_atomic: its source's)
        write(tmp)  # (mkstemp made it 0600: writable)
        if mode is None and stat.S_IMODE(os.stat(tmp).st_mode) == 0o600:  # write() set none
            mode = 0o666 & ~_umask()
        if mode is not None:
            os.chmod(tmp, mode)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
