"""What differs between two records of a run or a directory of runs
(spread.json, a study's point.json, tune.json), as 'what old -> new'
texts for the one-line refusals that name them.  One formatter, so that a
spread run, a study and a tune say the same difference the same way."""

# the hashes plan.content and spread.identity record, by what they are of
HASHED = {"model_sha256": "the content of its model file", "platform_sha256": "the content of its platform file",
          "network_sha256": "the content of its network file", "node_sha256": "its composed node",
          "hosts_sha256": "the hosts its ranks run on",
          "xhpl_sha256": "its HPL binary (rebuilt since: simblas-hpl build)",
          "libsimblas_sha256": "the libsimblas it preloads (SimBLAS rebuilt or upgraded since)"}


def _short(v):
    return v[:12] if isinstance(v, str) else v


def changes(was, now, name=None, _path=()):
    """['what old -> new', ...] for each key whose value differs, sorted by
    key; nested dicts by their own keys; a hash (HASHED) as what it is the
    hash of, with both hashes cut to 12 digits; [] when nothing differs.
    name(path) -> str names a key by its path (a tuple of keys; default:
    the keys joined by spaces); None from it hides that key."""
    out = []
    for k in sorted(set(was) | set(now), key=str):
        a, b = was.get(k), now.get(k)
        if a == b:
            continue
        path = _path + (k,)
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(changes(a, b, name, path))
        elif k in HASHED:
            out.append(f"{HASHED[k]} ({k} {_short(a)} -> {_short(b)})")
        else:
            label = name(path) if name else " ".join(map(str, path))
            if label is not None:
                out.append(f"{label} {a!r} -> {b!r}")
    return out
