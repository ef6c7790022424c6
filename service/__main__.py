"""``python -m service``: the command line (see ``service.cli``)."""

import sys

from .cli import main

sys.exit(main())
