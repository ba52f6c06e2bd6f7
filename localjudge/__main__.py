"""`python -m localjudge ...`: the command line, for notebooks, job schedulers and environments whose scripts
directory is not on PATH (where the `localjudge` console script cannot be found)."""

import sys

from .cli import main

sys.exit(main())
