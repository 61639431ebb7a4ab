"""``python -m deep_research.cli``: the command line."""

import sys

from deep_research.cli.main import main

sys.exit(main())
