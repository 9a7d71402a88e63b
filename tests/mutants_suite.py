"""Six former "tests that cannot fail", each now fixed: one mutant per test that the fixed
test kills and the old form of the test let through (tests/mutate.py runs them). Where the test
checks a helper of its own (the layer rule, the assert finder, the sample), the helper is
mutated; elsewhere the code under test is."""

from __future__ import annotations

from mutate import Mutant

MUTANTS = [
    # test_determinism.py:61 compared a set with an int; now the sample must rotate
    Mutant("suite: the determinism sample never rotates", "tests/test_determinism.py",
           "        chosen.append(rest[day % len(rest)])", "        chosen.append(rest[0])",
           ("tests/test_determinism.py::test_the_sample_is_small_and_rotates",)),
    # test_doctests.py:26 passed modules whose examples doctest never ran; now attempted > 0
    Mutant("suite: a module's examples hidden from doctest", "explainer_tools/blocks.py",
           "from pathlib import Path\n\nBLOCK_START", "from pathlib import Path\n\n"
           "__doc__ = None  # the module's examples vanish from doctest\nBLOCK_START",
           ("tests/test_doctests.py::test_docstring_examples[explainer_tools.blocks]",)),
    # test_pacbound_coding.py:73-81 checked export names only; now the very functions
    Mutant("suite: a stand-in exported under the coder's name", "explainer_code/pacbound/"
           "__init__.py", "    \"message_length_bits\",\n", "    \"message_length_bits\",\n"
           "]\n\n\ndef message_length_bits(codes, levels):  # a stand-in of the same name\n"
           "    return 0\n\n\n__all__ += [\n",
           ("tests/test_pacbound_coding.py::test_exported_at_top_level",)),
    # test_scripts.py:77-81 passed on any assert node; now asserts main reaches
    Mutant("suite: dead asserts count", "tests/test_scripts.py",
           "    seen, queue = set(), [\"main\"]", "    seen, queue = set(), list(functions)",
           ("tests/test_scripts.py::test_reachable_asserts_ignores_dead_and_constant_asserts",)),
    # test_layers.py:74-80 never applied the rule to the bad file; now it does
    Mutant("suite: same-layer imports allowed", "tests/test_layers.py",
           "        elif explainer_tools.LAYERS[other] >= explainer_tools.LAYERS[here]:",
           "        elif explainer_tools.LAYERS[other] > explainer_tools.LAYERS[here]:",
           ("tests/test_layers.py::test_the_check_catches_an_upward_import",)),
    # test_claims_mutation.py:87 timed wall-clock seconds; now CPU seconds (a slower check fails,
    # a busy machine does not: a sleep survives, see the report)
    Mutant("suite: the claim check burns CPU", "explainer_tools/claims/outputs.py",
           "        return cls(texts, origin=str(directory), names=read_names(directory))",
           "        sum(i * i for i in range(350_000_000))\n        return cls(texts, origin=str("
           "directory), names=read_names(directory))",
           ("tests/test_claims_mutation.py::test_the_committed_site_passes_in_seconds_of_cpu_time",)),
]
