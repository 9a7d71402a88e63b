"""The miniature's data and scoring pieces (Chapter 22): exact risks against Monte Carlo, windows
that score every target once, document sets, and the four parametrizations' sizes."""

from __future__ import annotations

from pathlib import Path

import miniature  # pins CPU kernels before torch
import numpy as np
import pytest
import torch
from miniature import bayes
from miniature.corpus import (
    EOD,
    DocSet,
    decode_tokens,
    encode_text,
    make_markov_source,
    markov_docset,
)
from miniature.evaluate import score, windows
from miniature.model import GPTConfig
from miniature.subspace import Parametrization, count_params


@pytest.fixture(scope="module")
def src():
    return make_markov_source(vocab=8, concentration=0.3, p_end=1 / 8, seed=4)


def test_best_risk_matches_monte_carlo(src) -> None:
    q = src.next_token_probs()
    docs = src.sample(40_000, seed=5)
    per_doc = [np.mean(-np.log2(q[np.r_[EOD, d], np.r_[d, EOD]])) for d in docs]
    se = np.std(per_doc) / np.sqrt(len(per_doc))
    assert abs(np.mean(per_doc) - bayes.best_bits(src)) < 4 * se


def test_top1_errors_match_monte_carlo(src) -> None:
    q = src.next_token_probs()
    guess = q.argmax(axis=1)
    docs = src.sample(40_000, seed=6)
    per_doc = [np.mean(guess[np.r_[EOD, d]] != np.r_[d, EOD]) for d in docs]
    se = np.std(per_doc) / np.sqrt(len(per_doc))
    assert abs(np.mean(per_doc) - bayes.best_top1_error(src)) < 4 * se
    k, err = bayes.majority_top1_error(src)
    assert err >= bayes.best_top1_error(src) and 0 <= k < src.vocab


@pytest.mark.parametrize(("n", "block", "stride"), [(1, 4, 3), (4, 4, 3), (5, 4, 3), (100, 16, 12),
                                                    (33, 8, 1)])
def test_windows_score_every_target_once(n: int, block: int, stride: int) -> None:
    scored = []
    for begin, end, first in windows(n, block, stride):
        assert 0 <= begin <= first < end <= n and end - begin <= block
        assert first == 0 or first - begin >= block - stride  # context kept
        scored += range(first, end)
    assert scored == list(range(n))


def test_docset_layout_and_prefix_property(src) -> None:
    small, large = markov_docset(src, 300, seed=1, block=128), markov_docset(src, 500, seed=1,
                                                                            block=128)
    for i in range(300):
        assert np.array_equal(small.doc(i), large.doc(i))
    s = int(small.starts[7])
    assert small.stream[s - 1] == EOD and small.stream[s + small.lengths[7]] == EOD
    assert DocSet.from_docs([small.doc(i) for i in range(300)]).stream.tobytes() == \
        small.stream.tobytes()


def test_text_round_trip() -> None:
    assert decode_tokens(encode_text("a cat (felis)")) == "a cat (felis)"
    assert decode_tokens(encode_text("Ã©")) == "??"


def test_scoring_a_known_predictor(src) -> None:
    """Scoring the true conditionals through the GPT interface reproduces the exact risk."""
    q = torch.tensor(src.next_token_probs(), dtype=torch.float32)
    docs = markov_docset(src, 20_000, seed=9, block=4096)

    def forward(x: torch.Tensor) -> torch.Tensor:
        return torch.log(q[x].clamp_min(1e-30))  # (B, T, V): the row of the previous token

    scores = score(forward, docs, np.arange(docs.n_docs), block=8, vocab=src.vocab)
    per_doc = scores.bits()
    se = per_doc.std() / np.sqrt(len(per_doc))
    assert abs(per_doc.mean() - bayes.best_bits(src)) < 4 * se


def test_parametrization_sizes() -> None:
    cfg = GPTConfig(vocab_size=8, block_size=16, n_layer=1, n_head=2, n_embd=16)
    counts = count_params(cfg)
    assert counts["lora"] == 2 * 2 * 4 * 16 + 4 * (16 + 8)  # q, v: 2 r C each; head r (C + V)
    kinds = ("sublora", "lora", "subspace", "full")
    sizes = {k: Parametrization(cfg, k, 20, 0, 137) for k in kinds}
    assert (sizes["sublora"].D, sizes["sublora"].d) == (counts["lora"], 20)
    assert sizes["lora"].d == counts["lora"] and sizes["full"].d == counts["base"]
    x = torch.zeros(1, 5, dtype=torch.long)
    # w = 0 in a subspace, or w = theta_0 directly, is the same initial network
    assert torch.equal(sizes["sublora"](x), sizes["lora"](x))
    assert torch.equal(sizes["subspace"](x), sizes["full"](x))


def test_seed_tiers_reuse_the_default_data_and_plan() -> None:
    """The d-sweep and WordNet seed tiers: their runs, their files, and the Markov data they share
    with the seeds tier (the d = 1,000 row of the sweep is the seeds tier's SubLoRA row)."""
    import json

    from miniature import tiers

    assert {d for _, _, d in tiers.DSWEEP_RUNS} == {250, 2_000}
    assert ("markov", "sublora", 1_000) in tiers.SEED_RUNS
    assert tiers.WORDNET_RUNS == [("wordnet", "sublora", 500)]
    S, sample, fresh, cfg = tiers.seed_data("markov")
    assert (S.n_docs, len(sample), fresh.n_docs, cfg) == (100_000, 5_000, 5_000, tiers.SEED_CFG)
    for name in ("seeds-d", "seeds-wordnet"):
        runs, path = tiers.SEED_TIERS[name]
        rec = json.loads(path.read_text(encoding="utf-8"))
        assert rec["tier"] == name and rec["threads"] == 1
        planned = {(s, k, d) for s, k, d in runs}
        assert all((r["source"], r["kind"], r["d"]) in planned for r in rec["runs"])
        assert all(r["seed"] in tiers.SEEDS for r in rec["runs"])
        # the metadata is what ran: each file's sizes and V agree with its source's data
        for sizes in rec["sizes"].values():
            assert [rec["n_docs"], rec["n_sample"], rec["n_fresh"]] == sizes
        assert rec["config"]["vocab_size"] == (48 if name == "seeds-wordnet" else 32)


def test_write_seeds_records_the_sizes_and_vocabulary_of_its_data(tmp_path) -> None:
    """`write_seeds` reads N, n, the held-out count and V from the data it ran on."""
    import dataclasses
    import json
    from types import SimpleNamespace

    from miniature import tiers

    cfg = dataclasses.replace(tiers.SEED_CFG, vocab_size=48)
    data = {"wordnet": (SimpleNamespace(n_docs=112_659), list(range(10_000)),
                        SimpleNamespace(n_docs=5_000), cfg)}
    out = tmp_path / "seeds.json"
    tiers.write_seeds(out, [], [], tiers.WORDNET_RUNS, "seeds-wordnet", data)
    rec = json.loads(out.read_text(encoding="utf-8"))
    assert (rec["n_docs"], rec["n_sample"], rec["n_fresh"]) == (112_659, 10_000, 5_000)
    assert rec["config"]["vocab_size"] == 48
    assert rec["sizes"] == {"wordnet": [112_659, 10_000, 5_000]}


def test_bench_miniature_selects_the_default_tier_and_judges_cpu_time() -> None:
    from explainer_tools.layout import DEFAULT
    from explainer_tools.scripts import bench

    scripts = bench.miniature_scripts(DEFAULT.discover_scripts())
    assert "ch22_markov.py" in scripts and "ch21_pipeline.py" in scripts
    assert all(s.startswith(("ch21_", "ch22_")) for s in scripts)
    rows = [("a.py", 400.0, 149.0, True), ("b.py", 20.0, 151.0, True)]
    assert bench.over_budget(rows, 150.0) == ["b.py"]  # CPU time decides, not wall time
    assert bench.over_budget(rows, 200.0) == []


SPIN = ("import time\nstart = time.process_time()\nwhile time.process_time() - start < 0.4:\n"
        "    pass\nprint('spun')\n")


def test_bench_miniature_measures_each_script_s_cpu_time(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The bench reads CPU time from its children: a script that spins 0.4 s of CPU must show
    it, whatever sandbox the caller asked for (a sandboxed child's time never reaches it)."""
    from explainer_tools.layout import Layout
    from explainer_tools.scripts import bench

    (tmp_path / "explainer_code").mkdir()
    (tmp_path / "explainer_code" / "ch22_spin.py").write_text(SPIN)
    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "ch22_spin.txt").write_text("spun\n")
    monkeypatch.setenv("EXPLAINER_SANDBOX", "required")
    assert bench.miniature(150.0, Layout(tmp_path)) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "ch22_spin.py" in line)
    cpu = float(row.split("CPU")[1].split("s")[0])
    assert cpu >= 0.35, row
    assert "equals the committed copy" in row


def test_the_miniature_pins_the_pipeline_s_code_paths() -> None:
    """Importing `miniature` pins the CPU code paths itself (a script may run outside the
    pipeline); they must be the pipeline's, or a script computes other bits by hand than under
    `make regenerate` (this round's MKL change had to be made in both places)."""
    from explainer_tools.scripts.settings import CPU_PINNING_ENV

    assert miniature.CPU_PIN == CPU_PINNING_ENV


def test_theta_adam_steps_along_the_projected_adam_direction() -> None:
    """The first ThetaAdam step: Adam's direction on theta is g / (|g| + eps), about sign(g), and
    w moves by -lr P^T of it / c (no weight decay here)."""
    from miniature.theta_adam import ProbeParametrization, ThetaAdam, make_optimizer, train_step
    from miniature.train import TrainConfig

    cfg = GPTConfig(vocab_size=8, block_size=16, n_layer=1, n_head=2, n_embd=16)
    x = torch.randint(0, 8, (4, 16), generator=torch.Generator().manual_seed(0))
    y = torch.roll(x, -1, dims=1)
    tcfg = TrainConfig(weight_decay=0.0)
    param = ProbeParametrization(cfg, "sublora", 20, 0, 137, proj_scale=2.0)
    x0 = torch.zeros(1, 5, dtype=torch.long)  # w = 0: the same initial network as Parametrization
    assert torch.equal(param(x0), Parametrization(cfg, "sublora", 20, 0, 137)(x0))
    flat = param.theta(param.w).detach().requires_grad_(True)
    torch.nn.functional.cross_entropy(param.forward_theta(x, flat).reshape(-1, 8),
                                      y.reshape(-1)).backward()
    g = flat.grad * min(1.0, tcfg.grad_clip / float(flat.grad.norm()))  # clipped as in train
    opt = make_optimizer(param, tcfg, "theta-adam")
    assert isinstance(opt, ThetaAdam)
    train_step(param, opt, x, y, 0.1, tcfg)
    u = g / (g.abs() + 1e-6)  # Adam's first direction
    expect = -0.1 * param.projector.to_dense().T @ u / 2.0
    assert torch.allclose(param.w.detach(), expect, atol=1e-5)
    with pytest.raises(ValueError):
        make_optimizer(ProbeParametrization(cfg, "lora", 20, 0, 137), tcfg, "theta-adam")


def test_theta_adam_quantize_clips_at_a_multiple_of_the_rms() -> None:
    """`theta_adam.quantize`: pacbound's quantizer when clip_sd is 0 (or m reaches max|w|);
    otherwise bins over +- clip_sd rms, outliers in the end bins, each codeword its bin's mean."""
    import pacbound
    from miniature.theta_adam import quantize

    w = np.random.default_rng(0).standard_normal(2_000)
    w[0] = 40.0  # one outlier: max|w| is 40, the rms about 1.4
    for args in ((11, 0.0), (11, 1e9)):
        codes, book = quantize(w, *args)
        ref_codes, ref_book = pacbound.quantize_uniform(w, 11)
        assert np.array_equal(codes, ref_codes) and np.array_equal(book, ref_book)
    codes, book = quantize(w, 16, 3.0)
    assert codes.min() == 0 and codes.max() == 15 and codes[0] == 15
    for k in range(16):
        assert book[k] == np.float16(w[codes == k].mean())
    assert len(np.unique(codes)) == 16  # the outlier no longer empties the middle bins
    assert len(np.unique(pacbound.quantize_uniform(w, 16)[0])) < 10


def test_theta_adam_finish_and_save_load_match_the_book(tmp_path) -> None:
    """`theta_adam.finish` with another quantizer that happens to equal the book's gives
    `experiment.finish`'s bound; a run resumed from a --save file ends at the same w."""
    from miniature import experiment, theta_adam
    from miniature.train import TrainConfig

    src = make_markov_source(vocab=8, concentration=0.3, p_end=1 / 8, seed=4)
    S, fresh = markov_docset(src, 300, seed=1), markov_docset(src, 50, seed=2)
    cfg = GPTConfig(vocab_size=8, block_size=16, n_layer=1, n_head=2, n_embd=16)
    tcfg = TrainConfig(steps=6, qat_steps=3, batch_size=4, lr=1e-2, warmup=2, log_every=3)
    sample = np.arange(40)
    ends = []
    for opt in ("adamw", "theta-adam"):
        for how in ("save", "load"):
            param = theta_adam.ProbeParametrization(cfg, "sublora", 20, 0, 137)
            path = str(tmp_path / f"w_{opt}.pt")
            theta_adam.train(param, S.stream, tcfg, opt, levels=7, clip_sd=2.0,
                             **({"save": path} if how == "save" else {"load": path}))
            ends.append(param.w.detach().clone())
        assert torch.allclose(ends[-2], ends[-1], atol=1e-6)
    a = experiment.finish(param, S, cfg, sample, fresh, "cpu", [], 0.0)
    b = theta_adam.finish(param, S, cfg, sample, fresh, "cpu", [], 0.0, clip_sd=1e9)
    for key in ("bound_bits", "best_alpha", "sample_bits", "bound_top1", "heldout_smoothed"):
        assert getattr(a, key) == getattr(b, key), key
    assert a.message == b.message


def test_theta_adam_aligned_windows_start_at_a_leading_eod(src) -> None:
    """`aligned_offsets`: every window starts at an EOD and holds block + 1 tokens of the stream."""
    from miniature.theta_adam import aligned_offsets

    S = markov_docset(src, 200, seed=1)
    off = aligned_offsets(np.random.default_rng(0), S.stream, 16, 500)
    assert np.all(S.stream[off] == EOD) and off.max() + 17 <= len(S.stream)
    assert len(np.unique(off)) > 100  # drawn across the documents
