"""``python -m shanghai_net.cli``: the `shanghai` command."""

import sys

from . import main

sys.exit(main())
