"""`make sandbox`: say in one line whether chapter scripts run in the kernel's sandbox here, and
which one (the warm sandbox, or bubblewrap per script), or with audit hooks only."""

from __future__ import annotations

import sys

from explainer_tools.scripts import zygote
from explainer_tools.scripts.containment import sandbox_status


def main() -> int:
    try:
        contained = sandbox_status()
    except (RuntimeError, ValueError) as error:
        print(f"sandbox: {error}", file=sys.stderr)
        return 1
    if contained:
        reason = zygote.probe()
        how = ("in the warm sandbox (children of a warm parent that contain themselves)"
               if not reason else f"in bubblewrap, one per script (warm sandbox: {reason})")
        print(f"sandbox: chapter scripts run {how}: read-only tree, own PID and network "
              "namespaces")
    return 0


if __name__ == "__main__":
    sys.exit(main())
