"""What the tests of validate share: a model file's head as the calibrator
writes it (write_model) and a stand-in calibrator that answers
--reference-speed (fake_calibrator)."""

import os

MEASURED = "measured: dgemm m=3280 n=3280 k=256 in HPL's layout, median of 8"


def write_model(path, speed, said=MEASURED):
    """A model file as simblas-calibrate writes its head: meta reference_speed
    (when said) and the reference-speed line."""
    with open(path, "w") as f:
        f.write("simblas-model 1\nmeta mode full\n" + (f'meta reference_speed "{said}"\n' if said else "") +
                f"reference-speed {speed:g}\nset node\ndgemm mnk=1.6e-11 1=2e-07\nend\n")
    return path


def fake_calibrator(path, speed, log=None, fail=False):
    """An executable that answers --reference-speed [MODEL] as the calibrator
    does (one JSON line, the model's shape), logging its arguments."""
    said = MEASURED.replace("3280", "1964")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + (f'echo "$@" >> {log}\n' if log else "") +
                ("echo 'simblas-calibrate: cannot load the BLAS' >&2; exit 2\n" if fail else
                 f'said="{said}"\n'
                 f'[ -n "$2" ] && said=$(sed -n \'s/^meta reference_speed "\\(.*\\)"$/\\1/p\' "$2")\n'
                 f'echo "{{\\"reference_speed\\": {speed:g}, \\"said\\": \\"$said\\", \\"cores\\": 2, '
                 f'\\"reps\\": 3, \\"stolen_share\\": 0.01, \\"wall_s\\": 4.5}}"\n'))
    os.chmod(path, 0o755)
    return path
