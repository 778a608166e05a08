#!/usr/bin/python3
"""Writes remat-dialect MLIR for model forward functions (see --help)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from remat_models.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
