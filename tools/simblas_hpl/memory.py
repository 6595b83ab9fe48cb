"""The simulator's memory: the fold block, SMPI's shared-malloc block, huge
pages, this machine's memory, and the simulator's allocator (--malloc)."""

import glob
import os
import re
import resource

from . import settings
from .errors import CliError
from .files import read_text

BLOCKSIZE_MIN = 2 << 20     # smpi/shared-malloc-blocksize floor: one huge page
_SANITIZER_RUNTIMES = ("libasan", "libtsan", "libmsan", "libhwasan")
_MALLOCS = ("libjemalloc", "libtcmalloc", "libmimalloc")


def meminfo():
    """/proc/meminfo's fields as integers (kB for sizes, a count for the
    HugePages_* lines), read once."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+):\s+(\d+)", read_text("/proc/meminfo"), re.M)}


def meminfo_available():
    kb = meminfo().get("MemAvailable")
    return kb * 1024 if kb is not None else None


def max_map_count():
    try:
        return int(read_text("/proc/sys/vm/max_map_count").strip())
    except ValueError:
        return 65530


def fold_block(blocksize):
    """libsimblas's fold block for SMPI's shared-malloc block `blocksize`:
    its default, or the block itself when larger (it must be a multiple)."""
    return max(settings.default("SIMBLAS_FOLD_BLOCK"), blocksize)


def shared_malloc_blocksize(n, nb, p, q):
    """2 MiB (a huge page), doubled while the panel buffers would need over an
    eighth of vm.max_map_count: they are folded ranges shared by all ranks
    (simblas_fold_malloc_buffer), which SMPI's shared malloc maps block by
    block, so the count does not grow with the ranks."""
    maxmap = max_map_count()
    panel = 8 * nb * (-(-n // p) + -(-n // q) + nb + 8)
    bs = BLOCKSIZE_MIN
    while 2 * -(-panel // bs) > maxmap // 8 and bs < (1 << 30):
        bs *= 2
    return bs


ADDRESS_SPACE = 1 << 47     # a process's user address space on x86-64 (4-level page tables): 128 TiB


def numroc(n, nb, proc, nprocs):
    """HPL_numroc: the rows (or columns) of an n-long dimension in blocks of
    nb that process proc of nprocs holds (process 0 holds the most)."""
    nblocks, extra = n // nb, (n // nb) % nprocs
    k = (nblocks // nprocs) * nb
    if proc < extra:
        return k + nb
    return k + n % nb if proc == extra else k


def matrix_reservation(n, nb, p, q, align=8):
    """The address space libsimblas reserves for the largest rank's folded
    matrix (HPL_pdtest's [A|b], (align + (ld + 1)(nq + 1)) doubles, ld the
    local rows rounded up to a multiple of align that is no power of 2), an
    eighth larger than asked, so that the other ranks' fit in it too."""
    mp, nq = numroc(n, nb, 0, p), numroc(n, nb, 0, q)
    ld = ((max(1, mp) - 1) // align) * align
    while True:
        ld += align
        if ld & (ld - 1):
            break
    need = 8 * (align + (ld + 1) * (nq + 1))
    return need + need // 8


def largest_n(nb, p, q, align=8, limit=ADDRESS_SPACE):
    """The largest N whose matrix reservation fits within limit."""
    lo, hi = nb, nb
    while matrix_reservation(hi, nb, p, q, align) <= limit:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if matrix_reservation(mid, nb, p, q, align) <= limit else (lo, mid)
    return lo


def check_address_space(n, nb, p, q, align):
    """A modelled run's folded matrix must fit in the address space: CliError
    naming the largest N that does (the fold would fail only after the
    simulator started, saying to check 'ulimit -v')."""
    need = matrix_reservation(n, nb, p, q, align)
    if need > ADDRESS_SPACE:
        raise CliError(f"--n {n} on {p}x{q}: one rank's matrix needs {need / 2**40:,.0f} TiB of address space, "
                       f"more than the {ADDRESS_SPACE >> 40} TiB (47-bit) address space of a process: "
                       f"the largest N that fits on {p}x{q} with NB={nb} is {largest_n(nb, p, q, align):,}")
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit != resource.RLIM_INFINITY and need > limit:
        raise CliError(f"--n {n} on {p}x{q}: one rank's matrix needs {need / 2**30:,.1f} GiB of address space, and "
                       f"'ulimit -v' allows {limit / 2**30:,.1f} GiB; raise the limit with: ulimit -v unlimited")


def hugetlbfs_mount(path):
    """The huge page size of the hugetlbfs mounted at path, or None."""
    real = os.path.realpath(path)
    for line in read_text("/proc/mounts").splitlines():
        f = line.split()
        if len(f) >= 4 and f[2] == "hugetlbfs" and os.path.realpath(f[1].replace("\\040", " ")) == real:
            m = re.search(r"pagesize=(\d+)([KMG]?)", f[3])
            if m:
                return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)]
            return meminfo().get("Hugepagesize", 2048) * 1024
    return None


def check_hugepages(d, blocksize):
    """--hugepages DIR: a hugetlbfs mount with enough free huge pages for the
    fold block and SMPI's shared-malloc block; CliError naming the remedy."""
    if not os.path.isdir(d):
        raise CliError(f"--hugepages {d}: no such directory; mount a hugetlbfs there with: "
                       f"mkdir -p {d} && mount -t hugetlbfs none {d}")
    page = hugetlbfs_mount(d)
    if page is None:
        raise CliError(f"--hugepages {d} is not a hugetlbfs mount; mount one with: mount -t hugetlbfs none {d}")
    fold = fold_block(blocksize)
    if blocksize % page or fold % page:
        raise CliError(f"--hugepages {d}: its huge pages ({page >> 20} MiB) do not divide SMPI's shared-malloc "
                       f"block ({blocksize >> 20} MiB); mount a hugetlbfs of 2 MiB pages (pagesize=2M)")
    need = fold // page + blocksize // page
    mi = meminfo()
    free = mi.get("HugePages_Free", 0)
    if free < need:
        total = mi.get("HugePages_Total", 0)
        raise CliError(f"--hugepages {d}: the run needs {need} free huge pages of {page >> 20} MiB (the fold block "
                       f"and SMPI's shared block), {free} are free; reserve them with: "
                       f"sysctl -w vm.nr_hugepages={total - free + need}")
    return page


def find_jemalloc():
    """The path of jemalloc's shared library (Debian: libjemalloc2), or None;
    SIMBLAS_JEMALLOC names another."""
    own = settings.value("SIMBLAS_JEMALLOC")
    if own:
        return own if os.path.isfile(own) else None
    for pat in ("/usr/lib/*-linux-gnu/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2",
                "/usr/local/lib/libjemalloc.so.2", "/usr/lib64/libjemalloc.so.2"):
        hits = sorted(glob.glob(pat))
        if hits:
            return hits[0]
    return None


def resolve_malloc(choice):
    """--malloc: (name, library to preload or None).  jemalloc by default in
    model mode, where it cuts the wall time by a fifth at Stampede's scale
    (SimGrid allocates per message); the system's when jemalloc is missing
    or when the environment already preloads a sanitizer or an allocator."""
    pre = os.environ.get("LD_PRELOAD", "")
    clash = next((x for x in _SANITIZER_RUNTIMES + _MALLOCS if x in pre), None)
    if choice == "system":
        return "system", None
    lib = find_jemalloc()
    if choice == "jemalloc":
        if not lib:
            where = settings.value("SIMBLAS_JEMALLOC")
            raise CliError(f"--malloc jemalloc: {where or 'libjemalloc.so.2'} not found; install it with "
                           "apt-get install libjemalloc2 (scripts/install-deps.sh does), or use --malloc system")
        if clash:
            raise CliError(f"--malloc jemalloc: LD_PRELOAD already loads {clash} ({pre}), whose malloc "
                           "would fight jemalloc's; use --malloc system")
        return "jemalloc", lib
    if clash or not lib:
        return "system", None
    return "jemalloc", lib
