"""``python -m bench.verifier``: see :mod:`bench.verifier.run`."""

import sys

from bench.verifier.run import main

sys.exit(main())
