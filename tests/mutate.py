"""Targeted mutation testing of explainer_tools and pacbound: does some test fail when the code
is broken? (`make mutate`, minutes; not part of `make test`.)

Each mutant replaces one exact snippet of one file (it must occur exactly once, else the harness
stops naming the file) in a scratch copy of the repository, then runs the tests named for it
there, with a per-test timeout so that a mutant that hangs counts as caught instead of hanging.
A mutant is *killed* when those tests fail, *survives* when they pass. The score is killed /
all; every survivor is printed with what it breaks, to be killed by a new test or explained.

    .venv/bin/python tests/mutate.py            # every mutant
    .venv/bin/python tests/mutate.py -k runner  # those whose name contains "runner"
    make mutate                                 # the same as the first line
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SKIPPED = shutil.ignore_patterns(".git", ".venv", "site", ".cache", "build", "__pycache__",
                                 ".pytest_cache", ".ruff_cache")
TEST_TIMEOUT_S = 120


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # repository-relative file
    old: str  # exact snippet, occurring once
    new: str
    tests: tuple[str, ...]  # pytest node ids or files, run in the copy


T_CONT = "tests/test_containment.py"
T_RUN = "tests/test_runner.py"
T_PIPE = "tests/test_pipeline.py"
MUTANTS = [
    # runner: containment, process trees, exits, tracing
    Mutant("runner: writes not refused", "explainer_tools/containment.py",
           "        return str(target) == os.devnull or any(",
           "        return True or any(", (f"{T_CONT}::test_probe_A15_writes_outside_the_writable"
                                           "_folders_are_refused",)),
    Mutant("runner: descendants left running", "explainer_tools/process_tree.py",
           "    kill_tree(os.getpid(), include_root=False)\n",
           "    return\n", (f"{T_CONT}::test_probe_A11_a_child_in_a_new_session_ends_with_the_"
                           "script",)),
    Mutant("runner: no subreaper", "explainer_tools/process_tree.py",
           "    prctl(36, 1)  # PR_SET_CHILD_SUBREAPER", "    pass",
           (f"{T_CONT}::test_probe_A11_a_child_in_a_new_session_ends_with_the_script",)),
    Mutant("runner: timeout kills only the group", "explainer_tools/process_tree.py",
           "    for _attempt in range(200):\n        found = descendants(root)",
           "    for _attempt in range(0):\n        found = descendants(root)",
           (f"{T_CONT}::test_probe_A11_a_timeout_ends_children_in_new_sessions",)),
    Mutant("runner: the root killed before its descendants", "explainer_tools/process_tree.py",
           "        send_signal(root, signal.SIGSTOP)\n", "        kill(root)\n",
           (f"{T_CONT}::test_probe_A11_kill_tree_stops_the_root_before_it_kills_descendants",)),
    Mutant("runner: atexit handlers skipped", "explainer_tools/runner.py",
           "    atexit._run_exitfuncs()  # as", "    pass  # as",
           (f"{T_CONT}::test_probe_A23_atexit_output_is_the_same_under_both_runners",)),
    Mutant("runner: os._exit accepted", "explainer_tools/runner.py",
           "        unfinished = True  # it ended", "        unfinished = False  # it ended",
           (f"{T_CONT}::test_probe_A22_a_script_ending_in_os_exit_gets_no_stamp",)),
    Mutant("runner: stat not traced", "explainer_tools/runner.py",
           "    _trace_stats(read, containment)\n", "\n",
           (f"{T_CONT}::test_probe_A24_file_metadata_reads_are_inputs",)),
    Mutant("runner: no CPU limit", "explainer_tools/runner.py",
           "    if resource is None or seconds <= 0:", "    if True:",
           (f"{T_CONT}::test_probe_B2_the_cpu_limit_stops_computing_not_waiting",)),
    Mutant("runner: wall-clock timeout ignored", "explainer_tools/runner.py",
           "            if not done and elapsed > request.timeout:",
           "            if not done and elapsed > 10 * request.timeout + 3600:",
           (f"{T_RUN}::test_timeout_kills_the_script_and_its_process_group",)),
    Mutant("runner: reads not traced", "explainer_tools/runner.py",
           "        if event == \"open\" and len(args) >= 3 and is_read(args[1], args[2]):",
           "        if False:",
           (f"{T_CONT}::test_reads_of_repository_files_are_inputs",
            f"{T_PIPE}::test_regenerate_reruns_exactly_when_an_input_changes")),
    # layout and pipeline
    Mutant("layout: malformed limits accepted", "explainer_tools/layout.py",
           "    if not 0 < seconds < float(\"inf\"):", "    if False:",
           (f"{T_CONT}::test_probe_A10b_a_malformed_time_limit_is_an_error",)),
    Mutant("layout: write not atomic", "explainer_tools/layout.py",
           "        os.replace(tmp, path)", "        path.write_bytes(data)",
           (f"{T_CONT}::test_write_atomic_replaces_the_file_and_never_rewrites_it",)),
    Mutant("pipeline: tree not guarded", "explainer_tools/tree_io.py",
           "        if not changed:\n            return\n        if not self.restore:",
           "        if True:\n            return\n        if not self.restore:",
           (f"{T_CONT}::test_probe_A15_B3_B4_check_leaves_the_tree_as_it_was",)),
    Mutant("pipeline: refused writes ignored", "explainer_tools/pipeline.py",
           "    if result.refused:\n", "    if False:\n",
           (f"{T_CONT}::test_probe_A15_a_refused_write_is_an_error_naming_script_and_path",)),
    Mutant("pipeline: orphaned figures kept", "explainer_tools/pipeline.py",
           "    result.remove += orphaned_figures(scripts, owners) + orphans(scripts)",
           "    result.remove += orphans(scripts)",
           (f"{T_CONT}::test_probe_A18b_a_deleted_scripts_figure_is_removed_with_it",)),
    Mutant("pipeline: is_fresh ignores the environment", "explainer_tools/stamps.py",
           "    if stamp[\"environment\"] != stamp_environment():\n        return False\n",
           "", (f"{T_CONT}::test_a_stamp_is_stale_when_the_run_environment_changes",)),
    # errata: lines of the source file
    Mutant("errata: rendered line reported", "explainer_tools/errata_pages.py",
           "        first, last = self.origins[line - 1] if",
           "        return line\n        first, last = self.origins[line - 1] if",
           ("tests/test_errata.py::test_probe_C9_an_error_in_an_erratum_names_its_line_in_the_file",)),
    Mutant("errata: fields not checked by the hook", "explainer_tools/errata_hook.py",
           "    check_rendered(rendered, source, src_uri, STATE)\n", "",
           ("tests/test_errata.py::test_probe_C9_an_error_in_an_erratum_names_its_line_in_the_file",)),
    # blocks and markers
    Mutant("blocks: trailing empty lines kept", "explainer_tools/blocks.py",
           "            while current and not current[-1].strip():",
           "            while False:", ("tests/test_blocks.py",)),
    Mutant("glossary: definition unescaped in tooltips", "explainer_tools/glossary.py",
           "        title = html.escape(term.definition, quote=True)",
           "        title = term.definition", ("tests/test_reader_features.py",)),
    Mutant("glossary: page heading unescaped", "explainer_tools/glossary.py",
           "heading, definition = html.escape(term.term), html.escape(term.definition)",
           "heading, definition = term.term, html.escape(term.definition)",
           ("tests/test_reader_features.py",)),
    Mutant("bibliography: unclosed entry accepted", "explainer_tools/bibliography.py",
           "                if not re.match(r\"\\s*\\}\", text[pos:]):",
           "                if False:", ("tests/test_reader_features.py",)),
    Mutant("ledger: entry without id accepted", "explainer_tools/ledger.py",
           "        if not entry.get(\"id\"):", "        if False:",
           ("tests/test_reader_features.py",)),
    Mutant("reader hook: CRLF offsets not shifted", "explainer_tools/reader_hook.py",
           "    return [offset - bisect.bisect_left(pairs, offset) for offset in offsets]",
           "    return offsets", ("tests/test_reader_features.py",)),
    Mutant("reader hook: stripped blank lines not counted", "explainer_tools/reader_hook.py",
           "    return source.count(\"\\n\", 0, body) if body > 0 else 0",
           "    return source.count(\"\\n\", 0, body) - 1 if body > 0 else 0",
           ("tests/test_reader_features.py",)),
    Mutant("claims: lower-case 'part' a reference again", "explainer_tools/claims/numbers.py",
           "(?-i:Chapter|Figure|Equation|Step|Table|Tab\\.|Part)",
           "(?:Chapter|Figure|Equation|Step|Table|Tab\\.|Part)",
           ("tests/test_claims_mutation.py",)),
    # pacbound
    Mutant("pacbound: prefix code without its extra bit", "explainer_code/pacbound/occam.py",
           "    return message_bits + 2.0 * math.log2(message_bits) + 1.0",
           "    return message_bits + 2.0 * math.log2(message_bits)",
           ("tests/test_pacbound_occam.py",)),
    Mutant("pacbound: Hoeffding without the 2", "explainer_code/pacbound/occam.py",
           "math.sqrt(math.log(1.0 / eps) / (2.0 * n))", "math.sqrt(math.log(1.0 / eps) / n)",
           ("tests/test_pacbound_occam.py",)),
    Mutant("pacbound: Occam complexity in bits, not nats", "explainer_code/pacbound/occam.py",
           "    nats = complexity_bits * LN2 + math.log(1.0 / eps)",
           "    nats = complexity_bits + math.log(1.0 / eps)", ("tests/test_pacbound_occam.py",)),
    Mutant("pacbound: subsampling split swapped", "explainer_code/pacbound/subsampling.py",
           "    rho = n_sample / (n_sample + n_population)",
           "    rho = n_population / (n_sample + n_population)",
           ("tests/test_pacbound_subsampling.py",)),
    Mutant("pacbound: smoothing weight on the wrong side", "explainer_code/pacbound/smoothing.py",
           "    return -math.log2((1.0 - alpha) * p_f + alpha / vocab)",
           "    return -math.log2((1.0 - alpha) * p_f + alpha)",
           ("tests/test_pacbound_subsampling.py",)),
    Mutant("pacbound: quantizer without margin", "explainer_code/pacbound/quantize.py",
           "    edges = np.linspace(-largest - EDGE_MARGIN, largest + EDGE_MARGIN, levels + 1)",
           "    edges = np.linspace(-largest, largest, levels + 1)",
           ("tests/test_pacbound_coding.py",)),
    Mutant("pacbound: entropy in nats", "explainer_code/pacbound/message.py",
           "    return float(-(p * np.log2(p)).sum())", "    return float(-(p * np.log(p)).sum())",
           ("tests/test_pacbound_coding.py",)),
]


def source(root: Path, mutant: Mutant) -> str:
    """The file's text; the harness stops when the snippet does not occur exactly once."""
    text = (root / mutant.path).read_text(encoding="utf-8")
    count = text.count(mutant.old)
    if count != 1:
        raise SystemExit(f"{mutant.path}: the snippet of mutant {mutant.name!r} occurs {count} "
                         "times (expected once); update tests/mutate.py")
    return text


def apply(root: Path, mutant: Mutant) -> None:
    text = source(root, mutant)
    (root / mutant.path).write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")


def run(mutant: Mutant, template: Path) -> tuple[bool, float, str]:
    """(killed, seconds, last lines of pytest's report)."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as scratch:
        root = Path(scratch) / "repo"
        shutil.copytree(template, root, symlinks=True)
        apply(root, mutant)
        began = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
             "--durations=0", f"--timeout={TEST_TIMEOUT_S}", *mutant.tests],
            cwd=root, capture_output=True, text=True, check=False)
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-3:])
        if result.returncode not in (0, 1):  # 2-5: the run itself failed (collection, usage)
            raise SystemExit(f"mutant {mutant.name!r}: pytest exit {result.returncode}\n{tail}")
        return result.returncode == 1, time.monotonic() - began, tail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-k", action="append", default=[],
                        help="only mutants whose name contains this (repeatable: any of them)")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.k or any(k in m.name for k in args.k)]
    with tempfile.TemporaryDirectory(prefix="mutate-") as scratch:
        template = Path(scratch) / "repo"
        shutil.copytree(REPO_ROOT, template, ignore=SKIPPED, symlinks=True)
        for mutant in chosen:
            source(template, mutant)  # every snippet exists before the first run
        survivors = []
        for mutant in chosen:
            killed, seconds, tail = run(mutant, template)
            print(f"{'killed  ' if killed else 'SURVIVED'} {seconds:6.1f} s  {mutant.name}",
                  flush=True)
            if not killed:
                survivors.append((mutant, tail))
    score = len(chosen) - len(survivors)
    print(f"mutation score: {score}/{len(chosen)} killed")
    for mutant, tail in survivors:
        print(f"  survivor: {mutant.name} ({mutant.path}); tests {', '.join(mutant.tests)}\n"
              f"    {tail}")
    return 0 if not survivors else 1


if __name__ == "__main__":
    sys.exit(main())
