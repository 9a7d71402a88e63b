"""Products made on other kernels: which committed products a machine cannot reproduce bit for
bit, and how `check` compares them there.

Every stamp records the kernels of the machine that made its products (`numerics.Fingerprint.
kernels`: an id of what 13 small probes compute, and the CPU's name); a stamp without one was made
on the reference machine (`outputs/numerics_reference.json`). Two machines with one id compute the
same bits, and `check` compares their products byte for byte. Where the ids differ (seen: an Intel
and an AMD CPU, both pinned to the same code paths, differ because MKL's vector math, which PyTorch
calls for sqrt, sin, exp and the like, takes a vendor's own path whatever MKL_CBWR says), a script
that trains prints the same text with other last digits. For a script whose stamp is fresh (none
of its inputs changed, so the machine is the one thing that differs), `check` then compares its
output number by number and its figures pixel by pixel, within the tolerance stated in
`numerics` (`text_mismatch`, `figure_mismatch`); within it, the committed products stand, and the
pages and the stamp are compared byte for byte as everywhere else. A stale script is compared
byte for byte on any machine.

A stamp stale in the runner's code alone (`settings.RUNNER_CODE`: how scripts run, not what they
compute) counts as fresh here, in `check` and in `regenerate` alike: the script is re-run and,
within the tolerance, its committed products and their kernels stand and its stamp takes the new
hashes (`regenerate` writes it; `check` expects it); beyond the tolerance, `regenerate` writes the
new products and `check` fails. So a change to the runner can be landed from any machine. The
notebook follows the same rule with the files its stamp lists from `explainer_tools/`: on other
kernels, `regenerate` executes it (its claims are checked there), then keeps the committed
notebook and restamps it with its recorded kernels (`pipeline.execute_notebooks`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from explainer_tools import glue
from explainer_tools.layout import Layout
from explainer_tools.scripts import numerics
from explainer_tools.scripts.settings import RUNNER_CODE
from explainer_tools.scripts.stamps import is_fresh, recorded_kernels
from explainer_tools.tree_io import CommandError

Kernels = dict[str, str]


def machine_kernels(layout: Layout) -> Kernels | None:
    """This machine's kernels (`numerics.Fingerprint.kernels`, probed once per process) for a
    repository that records a reference machine (`make numerics`); None for one that does not
    (the tests' fixture repositories), whose stamps then record no kernels."""
    if not (layout.root / numerics.REFERENCE_PATH).is_file():
        return None
    try:
        return numerics.this_machine().kernels
    except numerics.NumericsError as error:
        raise CommandError(f"regenerate: {error}") from None


def other_kernels(scripts: list[str], layout: Layout) -> dict[str, Kernels]:
    """The scripts whose committed products were made on kernels that compute other bits than
    this machine's, with those kernels; only scripts whose stamp is fresh but for the runner's
    code."""
    here = machine_kernels(layout)
    found = {}
    for script in scripts:
        recorded = numerics.elsewhere(recorded_kernels(script, layout), here, layout)
        if recorded and is_fresh(script, layout, ignoring=RUNNER_CODE):
            found[script] = recorded
    return found


def settle_other_kernels(runs: dict[str, Any], recorded: dict[str, Kernels],
                         layout: Layout) -> list[str]:
    """For each run (a `pipeline.ScriptRun`) in `recorded` whose products agree with the committed
    ones within the tolerance for other kernels, put the committed products and kernels in its
    place, so that pages and stamp compare byte for byte; leave a run beyond the tolerance as it
    is (check shows its diff). Returns one line per script whose products differed: where they
    were made, and how the comparison came out."""
    notes = []
    for script, kernels in recorded.items():
        run = runs.get(script)
        if run is None:
            continue
        path = layout.output_path(script)
        committed = path.read_bytes().decode("utf-8", "replace") if path.is_file() else ""
        mismatch = numerics.text_mismatch(committed, run.output) if committed else "missing"
        figures = dict(run.figures)
        for name, data in run.figures.items():
            figure = layout.fig_dir / name
            old = figure.read_bytes() if figure.is_file() else b""
            if old != data:
                problem = numerics.figure_mismatch(old, data)
                mismatch = mismatch or (f"{name}: {problem}" if problem else "")
                figures[name] = old
        where = f"made on {kernels.get('cpu', '?')} (kernels {kernels.get('id', '?')})"
        if mismatch:
            notes.append(f"{script}: its committed products were {where}; here they "
                         f"differ beyond the tolerance for other kernels: {mismatch}")
            continue
        same = committed == run.output and figures == run.figures
        names = glue.names_path(layout.output_dir, script)  # they print the committed text
        runs[script] = dataclasses.replace(
            run, output=committed, figures=figures, kernels=kernels,
            names=names.read_text(encoding="utf-8") if run.names and names.is_file() else run.names)
        if not same:
            notes.append(
                f"{script}: its committed products were {where}; here every number "
                f"agrees within the tolerance for other kernels "
                f"({100 * numerics.RELATIVE_TOLERANCE:g} % or {numerics.LAST_DIGIT_UNITS} units "
                f"of the last digit) and every figure in all but "
                f"{100 * numerics.FIGURE_PIXEL_SHARE:g} % of its pixels")
    return notes
