"""`python -m explainer_tools.claims` is `python -m explainer_tools claims`."""

import sys

from explainer_tools.claims.cli import main

sys.exit(main())
