"""``python -m remat_models``: see :mod:`remat_models.cli`."""

import sys

from .cli import main

sys.exit(main())
