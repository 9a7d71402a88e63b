"""The numerics probes: which floating-point kernels compute other bits than on the machine that
committed the outputs (explainer_tools/scripts/numerics.py)."""

from __future__ import annotations

import json
import os

import pytest

from explainer_tools.layout import DEFAULT, Layout
from explainer_tools.scripts import cpu_paths, numerics
from explainer_tools.scripts.settings import run_environment

REF = numerics.Fingerprint("Intel X, GenuineIntel, AVX-512", "2.13.0+cpu", "2.4.6",
                           {"torch gelu": "01", "torch matmul": "02", "numpy QR": "03"})
NO_AVX2 = bool(cpu_paths.pinned_paths_unavailable())


@pytest.fixture(scope="module")
def here() -> numerics.Fingerprint:
    return numerics.probe()


def test_the_same_digests_are_reported_as_agreement() -> None:
    line = numerics.report(REF, REF)
    assert line.endswith("computes what the reference machine computes in all 3 probes")


def test_each_differing_probe_is_named_in_the_reference_s_order() -> None:
    other = numerics.Fingerprint("AMD Y, AuthenticAMD, AVX2", "2.13.0+cpu", "2.4.6",
                                 {"torch gelu": "ff", "torch matmul": "02", "numpy QR": "ee"})
    assert numerics.differing_probes(REF, other) == ["torch gelu", "numpy QR"]
    line = numerics.report(REF, other)
    assert "(AMD Y, AuthenticAMD, AVX2) differs from the reference machine (Intel X" in line
    assert "in 2 of 3 probes: torch gelu, numpy QR;" in line


def test_a_probe_this_machine_lacks_counts_as_different() -> None:
    fewer = numerics.Fingerprint("B", "2.13.0+cpu", "2.4.6", {"torch gelu": "01"})
    assert numerics.differing_probes(REF, fewer) == ["torch matmul", "numpy QR"]


def test_other_library_versions_are_named() -> None:
    newer = numerics.Fingerprint("B", "2.14.1+cpu", "2.4.6", dict(REF.probes))
    assert "(torch 2.14.1+cpu here, 2.13.0+cpu there;" in numerics.report(REF, newer)
    assert "torch" not in numerics.report(REF, REF).partition("probes")[2]


def test_no_reference_is_said_so() -> None:
    assert numerics.report(None, REF).startswith(
        f"numerics: no reference recorded ({numerics.REFERENCE_PATH})")


@pytest.mark.parametrize("text, message", [
    ('{"cpu": "x", "torch": "2",\n "numpy": "2", "probes": {"a": }}', "f.json:2: not JSON"),
    ('["cpu"]', "f.json: expected an object"),
    ('{"cpu": "x", "torch": "2", "numpy": "2", "probes": {}}', "f.json: expected strings"),
    ('{"cpu": "x", "torch": "2", "numpy": 2, "probes": {"a": "0"}}', "f.json: expected strings"),
    ('{"cpu": "x", "torch": "2", "numpy": "2", "probes": {"a": 1}}', "f.json: expected strings"),
])
def test_a_malformed_reference_is_an_error_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(numerics.NumericsError, match="^" + message):
        numerics.parse_fingerprint(text, "f.json")


def test_the_fingerprint_round_trips_through_its_file() -> None:
    assert numerics.parse_fingerprint(REF.to_json(), "f") == REF


def test_the_committed_reference_has_every_probe_of_the_code(here: numerics.Fingerprint) -> None:
    """A probe added to PROBE_SOURCE without `--record` (or one removed) leaves the reference
    stale: it must name exactly the probes the code computes."""
    reference = numerics.read_reference()
    assert reference is not None, "record it: python -m explainer_tools.scripts.numerics --record"
    assert sorted(reference.probes) == sorted(here.probes)
    assert len(here.probes) >= 13 and all(len(v) == 16 for v in here.probes.values())


def test_the_probes_are_deterministic_on_one_machine(here: numerics.Fingerprint) -> None:
    assert numerics.probe() == here


@pytest.mark.skipif(NO_AVX2, reason="no x86-64 AVX2 CPU: the pinned kernels do not exist here")
def test_another_kernel_choice_shows_in_its_own_probes_only(here: numerics.Fingerprint) -> None:
    """NumPy's OpenBLAS made to take other kernels changes NumPy's linear-algebra probes and no
    torch probe; MKL on another branch changes torch's matrix products and no NumPy probe."""
    def under(name: str, value: str) -> list[str]:
        env = {**os.environ, **run_environment(), **numerics.PROBE_THREADS, name: value}
        return numerics.differing_probes(here, numerics.probe(env=env))

    openblas = under("OPENBLAS_CORETYPE", "Sandybridge")
    assert "numpy QR" in openblas and not any(p.startswith("torch") for p in openblas)
    mkl = under("MKL_CBWR", "AUTO")
    if mkl:  # AUTO is COMPATIBLE's own branch on no machine we know of, but MKL decides
        assert "torch matmul" in mkl and not any(p.startswith("numpy") for p in mkl)


def test_check_line_reports_a_failed_probe_instead_of_raising(monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise numerics.NumericsError("numerics: the probes failed (exit 1):\nImportError: torch")
    monkeypatch.setattr(numerics, "probe", broken)
    assert numerics.check_line().startswith("numerics: the probes failed (exit 1)")


def test_record_writes_the_reference_and_compare_reads_it(tmp_path, monkeypatch, capsys) -> None:
    layout = Layout(tmp_path)
    (tmp_path / "outputs").mkdir()
    monkeypatch.setattr(numerics, "probe", lambda *a, **k: REF)
    assert numerics.main(["--record"], layout) == 0
    written = json.loads((tmp_path / numerics.REFERENCE_PATH).read_text(encoding="utf-8"))
    assert written["probes"] == REF.probes and written["cpu"] == REF.cpu
    assert numerics.main([], layout) == 0
    other = numerics.Fingerprint("B", REF.torch, REF.numpy, {**REF.probes, "numpy QR": "ff"})
    monkeypatch.setattr(numerics, "probe", lambda *a, **k: other)
    assert numerics.main([], layout) == 1
    assert "in 1 of 3 probes: numpy QR;" in capsys.readouterr().out


def test_check_ends_with_the_numerics_line_on_the_book_only(tmp_path, monkeypatch,
                                                             capsys) -> None:
    """`make check` prints the report last (so that it shows at the end of a CI log), whatever
    the other checks found, and only for the book's own repository."""
    from explainer_tools import __main__ as cli
    from explainer_tools.book import book_checks, chapters, errata, ledger
    from explainer_tools.claims import cli as claims_cli
    from explainer_tools.scripts import pipeline

    def says(word: str, status: int):
        return lambda *a, **k: print(word) or status

    monkeypatch.setattr(pipeline, "check", says("scripts", 1))
    monkeypatch.setattr(claims_cli, "main", says("claims", 0))
    monkeypatch.setattr(errata, "main", says("errata", 0))
    monkeypatch.setattr(ledger, "main", says("ledger", 0))
    monkeypatch.setattr(chapters, "main", says("book", 0))
    monkeypatch.setattr(book_checks, "main", says("book checks", 0))
    monkeypatch.setattr(numerics, "check_line", lambda layout=DEFAULT: "numerics: probed")
    assert cli.check_everything(jobs=1, notebooks=False) == 1  # its verdict is the checks'
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "numerics: probed" and "scripts" in lines and "book checks" in lines
    assert cli.numerics_line(Layout(tmp_path)) is None
    assert cli.numerics_line(DEFAULT) == "numerics: probed"
