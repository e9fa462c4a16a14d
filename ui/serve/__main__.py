"""``python -m ui.serve``: the class setup (see :mod:`ui.serve.classroom`)."""

import sys

from ui.serve.classroom import main

sys.exit(main())
