#!/usr/bin/env python3
"""The panels' broadcasts of a 1xQ HPL run with look-ahead, from events.c's
logs (DIR/ev.RANK): for each panel sent (an MPI_Send of more than 100 kB),
how long its root waited, whether the receiver had already probed for it
(it was in its update's probe loop) or not yet (it was still busy), and
the probes that failed after the send; then, between a panel j and the
next, the two stretches whose race decides that: the receiver X from the
end of its own send (of panel j) to its first probe for panel j + 1, and
the sender Y from its probe that found panel j to its send of panel j + 1.
usage: events.py LABEL=DIR...   (two ranks)"""
import sys


def load(d):
    ev = {}
    for r in (0, 1):
        with open(f"{d}/ev.{r}") as fh:
            ev[r] = [(k, int(p), int(t), int(f), float(a), float(b), int(by))
                     for k, p, t, f, a, b, by in (line.split() for line in fh)]
    return ev


def panels(ev):
    """(root, tag, start, end) of each panel sent, in time order"""
    return sorted((e[4], e[5], r, e[2]) for r in (0, 1) for e in ev[r] if e[0] == 'S' and e[6] > 100000)


def waits(ev):
    out = {"sends": 0, "early": 0, "early_wait": 0.0, "early_first": 0.0, "early_fails": 0, "loop_wait": 0.0,
           "loop_fails": 0, "send_s": 0.0}
    for t0, t1, root, tag in panels(ev):
        probes = [e for e in ev[1 - root] if e[0] == 'P' and e[2] == tag]
        hits = [e for e in probes if e[3] == 1 and e[4] >= t0 - 1e-9]
        if not hits:
            continue
        hit = hits[0][4]
        before = [e for e in probes if t0 - 1.0 < e[4] < t0 - 1e-9]
        after = [e for e in probes if t0 - 1e-9 <= e[4] <= hit]
        fails = sum(1 for e in after if e[3] == 0)
        out["sends"] += 1
        out["send_s"] += t1 - t0
        if before:
            out["loop_wait"] += hit - t0
            out["loop_fails"] += fails
        else:
            out["early"] += 1
            out["early_wait"] += hit - t0
            out["early_first"] += after[0][4] - t0
            out["early_fails"] += fails
    return out


def race(ev):
    xs = ys = 0.0
    n = 0
    ps = panels(ev)
    for (a0, a1, x, tj), (d0, _, y, tn) in zip(ps, ps[1:]):
        if x == y:
            continue
        pb = [e for e in ev[x] if e[0] == 'P' and e[2] == tn and e[4] >= a1 - 1e-9]
        pc = [e for e in ev[y] if e[0] == 'P' and e[2] == tj and e[3] == 1 and e[4] >= a0 - 1e-9]
        if pb and pc:
            xs += pb[0][4] - a1
            ys += d0 - pc[0][4]
            n += 1
    return n, xs, ys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("run: panels sent, roots' MPI_Send s; receiver in its loop: wait s (failed probes per panel); "
          "receiver still busy: panels, wait s = to its first probe + after (failed probes per panel); "
          "race per panel: X busy ms, Y busy ms, margin Y - X ms")
    for arg in sys.argv[1:]:
        label, _, d = arg.partition("=")
        ev = load(d or label)
        w = waits(ev)
        n, xs, ys = race(ev)
        loop = w["sends"] - w["early"]
        print(f"{label}: {w['sends']} panels, {w['send_s']:.3f} s; in loop {w['loop_wait']:.3f} s "
              f"({w['loop_fails'] / max(loop, 1):.2f}); busy {w['early']}, {w['early_wait']:.3f} s = "
              f"{w['early_first']:.3f} + {w['early_wait'] - w['early_first']:.3f} "
              f"({w['early_fails'] / max(w['early'], 1):.2f}); race {1e3 * xs / max(n, 1):.1f}, "
              f"{1e3 * ys / max(n, 1):.1f}, {1e3 * (ys - xs) / max(n, 1):+.2f}")


if __name__ == "__main__":
    main()
