"""``python -m isrcheck``: the ``isrcheck`` command, for environments without its script on PATH."""

import sys

from isrcheck.explorer.cli.main import main

sys.exit(main())
