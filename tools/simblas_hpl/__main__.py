"""python3 -m simblas_hpl: the simblas-hpl command."""
import sys

from .cli import main

sys.exit(main())
