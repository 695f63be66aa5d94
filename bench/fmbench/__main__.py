"""`python3 bench/fmbench STUDY ...` (from anywhere) or `python3 -m fmbench STUDY ...` (from bench/)."""

import sys
from pathlib import Path

if not __package__:
    # Run as a directory: import the package from its parent, not its modules from inside it.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from fmbench.cli import main  # noqa: E402

sys.exit(main())
