"""Author-facing checks of the companion notebook "GPT-2 under the hood".

The notebook's prose says things about its own outputs ("validation turns up", "the second copy
costs almost nothing", "with the cache the tokens are the same"). Those statements must stay
true when the notebook is re-executed, but a student who changes a cell must not be stopped by an
assert. So the notebook asserts nothing itself; the pipeline calls, after executing it and in the
same kernel,

    from gpt_lab.checks import assert_notebook_claims
    assert_notebook_claims(globals())

(`CHECK_CELL`, appended to the executed notebook by the pipeline and removed before the notebook
is stored). It raises `NotebookClaimsError` listing every claim that no longer holds, so
`make regenerate` and `make check` fail with a message naming the sentence to revise.

Each claim is a function of the notebook's namespace (the variable names are the notebook's);
`notebook_claim_failures` returns the messages without raising. Margins: every threshold sits
well inside what the stored execution printed, so a claim fails only when the behaviour changes,
not from last-digit noise.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any

CHECK_CELL = "from gpt_lab.checks import assert_notebook_claims\nassert_notebook_claims(globals())"

Namespace = Mapping[str, Any]


class NotebookClaimsError(AssertionError):
    """Claims of the notebook's prose that its fresh outputs no longer support."""


def _tokenizer(ns: Namespace) -> bool:
    return ns["facts"] == {
        "'Hello world'": [15496, 995],
        "n_vocab": 50257,
        "<|endoftext|>": [50256],
    }


def _strawberry(ns: Namespace) -> bool:
    pieces = ns["pieces"]
    return pieces[" strawberry"] == [" strawberry"] and pieces["strawberry"] == [
        "st",
        "raw",
        "berry",
    ]


def _digits(ns: Namespace) -> bool:
    pieces = ns["pieces"]
    return pieces["12345678"] == ["123", "45", "678"] and pieces[" 12345678"] == [
        " 123",
        "45",
        "678",
    ]


def _bpe_replay(ns: Namespace) -> bool:
    return ns["bpe_agrees"] is True


def _bigram_gap_widens(ns: Namespace) -> bool:
    loss, counts, tr, va = ns["bigram_loss"], ns["counts"], ns["train_ids"], ns["val_ids"]
    gaps = [loss(counts, a, va) - loss(counts, a, tr) for a in (1.0, 0.1, 0.01)]
    return 0 < gaps[0] < gaps[1] < gaps[2]


def _gpt_beats_bigram(ns: Namespace) -> bool:
    return ns["best"]["validation"] < ns["bigram_val"] - 0.05


def _final_model_past_the_bigram(ns: Namespace) -> bool:
    return ns["final_val"] > ns["bigram_val"] + 0.05


def _prints_standard_errors(ns: Namespace) -> bool:
    """Whether `ns` comes from the notebook, which defines `mean_and_se` in section 2 and prints
    the standard errors and the first copy's excess that the claims below quote. The unit tests'
    hand-made namespace has none of these variables; in the notebook a renamed one still fails
    loudly, since `mean_and_se` is there."""
    return "mean_and_se" in ns


def _bigram_comparisons_with_se(ns: Namespace) -> bool:
    """At its lowest point the small GPT beats the bigram by over 2 SE (paired, per window);
    at step 500 it is above the bigram, by under 2 SE ("no better")."""
    if not _prints_standard_errors(ns):
        return True
    at_best = ns["vs_bigram"][ns["best"]["step"]]
    at_end = ns["vs_bigram"][ns["STEPS"]]
    return at_best[0] < -2 * at_best[1] and 0 < at_end[0] < 2 * at_end[1]


def _losses_fall_together_first(ns: Namespace) -> bool:
    train, val = ns["train_curve"], ns["val_curve"]
    return train[1] < train[0] - 1.0 and val[1] < val[0] - 1.0


def _validation_turns_up(ns: Namespace) -> bool:
    best, history = ns["best"], ns["history"]
    return best["step"] < history[-1]["step"] and ns["final_val"] > best["validation"] + 0.1


def _training_keeps_falling(ns: Namespace) -> bool:
    history, best = ns["history"], ns["best"]
    at_best = next(row["train"] for row in history if row["step"] == best["step"])
    return history[-1]["train"] < at_best - 0.3


def _gap_grows(ns: Namespace) -> bool:
    gaps = [v - t for v, t in zip(ns["val_curve"], ns["train_curve"], strict=True)]
    return gaps[-1] > 1.0 and gaps[-1] == max(gaps) and ns["gap"] > 1.0


def _first_copy_excess(ns: Namespace) -> bool:
    """The prose quotes the printed excess, 0.63 nats above ln 64, and its exp(-0.63) = 0.53."""
    if not _prints_standard_errors(ns):
        return True
    excess = ns["first_copy_excess"]
    return f"{excess:.2f}" == "0.63" and f"{math.exp(-excess):.2f}" == "0.53"


def _copying(ns: Namespace) -> bool:
    return ns["second_copy_loss"] < 0.5 < math.log(64) - 0.1 < ns["first_copy_loss"]


def _heads_form(ns: Namespace) -> bool:
    prev, ind = ns["prev_score"], ns["induction_score"]
    return (
        float(prev[0].max()) > 0.3
        and float(ind[1].max()) > 0.5
        and float(prev[1].max()) < 0.2
        and float(ind[0].max()) < 0.2
    )


def _phase_change(ns: Namespace) -> bool:
    log = ns["toy_log"]
    early = next(row["second copy"] for row in log if row["step"] == 100)
    return early > 0.8 * math.log(64) and log[-1]["second copy"] < 0.5


def _embed_row_echoes(ns: Namespace) -> bool:
    if ns["lm"].net is not ns["small"]:
        return True  # the sentence is about the small model
    return ns["echo"] >= 0.5


def _cache_same_tokens(ns: Namespace) -> bool:
    return ns["kv_tokens_match"] is True and ns["kv_bytes_per_token"] == 73_728


def _many_more_positions(ns: Namespace) -> bool:
    return ns["positions_uncached"] > 50 * ns["positions_cached"]


def _unembedding_share(ns: Namespace) -> bool:
    return 0.25 < ns["unembed_share"] < 0.4  # "about a third" of the work per position


def _architecture_counts(ns: Namespace) -> bool:
    return (ns["small_count_agrees"] is True and ns["gpt2_count_ties"] is True
            and ns["edit_count_agrees"] is True and ns["chapter5_small"] == 123_689_472)


def _entropy_rises_with_temperature(ns: Namespace) -> bool:
    bits = list(ns["entropy_by_tau"].values())
    return (ns["entropy_rises"] is True and 0 < bits[0] < bits[-1] < ns["max_entropy"]
            and all(a < b for a, b in itertools.pairwise(bits)))


def _mask_leak(ns: Namespace) -> bool:
    rows = ns["mask_rows"]
    masked, leaky = rows["with the mask"], rows["without the mask"]
    return (leaky["all"] < masked["all"] - 0.2  # lower over all positions: it reads answers
            and masked["last"] < masked["all"] - 0.2  # the masked model: best at the end
            and leaky["last"] > leaky["all"] + 0.2  # the leaky one: worst where nothing leaks
            and masked["moved"] == 0.0 and leaky["moved"] > 1e-3)


def _mask_gaps_with_se(ns: Namespace) -> bool:
    """Unmasked minus masked: lower over all positions and higher at the last, each beyond 2 SE;
    within each model, last minus all points the expected way but stays under 2 SE."""
    if not _prints_standard_errors(ns):
        return True
    gaps = ns["mask_gaps"]
    all_pos = gaps["without minus with the mask, all positions"]
    last = gaps["without minus with the mask, last position"]
    masked = gaps["with the mask, last minus all positions"]
    leaky = gaps["without the mask, last minus all positions"]
    return (all_pos[0] < -2 * all_pos[1] and last[0] > 2 * last[1]
            and -2 * masked[1] < masked[0] < 0 < leaky[0] < 2 * leaky[1])


def _order_test(ns: Namespace) -> bool:
    rows = ns["order_rows"]
    return (rows["neither (untrained)"] < 1e-4 and rows["mask only"] > 1e-3
            and rows["positions and mask"] > 1e-3)


def _no_positions_still_learns(ns: Namespace) -> bool:
    full = ns["mask_rows"]["with the mask"]["all"]
    return (ns["no_positions_loss"] < math.log(ns["V"]) - 1.0
            and abs(ns["no_positions_loss"] - full) < 0.3)


def _no_positions_gap_with_se(ns: Namespace) -> bool:
    """In this run slightly below the full model, by 0.04 nats, beyond 2 SE."""
    if not _prints_standard_errors(ns):
        return True
    diff, se = ns["no_positions_gap"]
    return f"{-diff:.2f}" == "0.04" and diff < -2 * se


CLAIMS: dict[str, tuple[str, Callable[[Namespace], bool]]] = {
    "tokenizer": ("section 1: GPT-2's tokenizer facts", _tokenizer),
    "strawberry": ("section 1: ' strawberry' 1 token, 'strawberry' st|raw|berry", _strawberry),
    "digits": ("section 1: '12345678' is 123|45|678, with a space ' 123'|45|678", _digits),
    "bpe": ("section 1: the printed merges end in tiktoken's tokens", _bpe_replay),
    "bigram": ("section 2: the less the bigram smooths, the wider its gap", _bigram_gap_widens),
    "beats bigram": ("section 2: the small GPT passes the best bigram model", _gpt_beats_bigram),
    "final model": ("section 2: after step 500 the validation loss is above the bigram's",
                    _final_model_past_the_bigram),
    "bigram se": ("section 2: beats the bigram by over 2 SE at its lowest, not after step 500",
                  _bigram_comparisons_with_se),
    "fall together": ("section 2: at first both losses fall together", _losses_fall_together_first),
    "turns up": ("section 2: validation turns up before the last step", _validation_turns_up),
    "train falls": ("section 2: the training loss keeps falling", _training_keeps_falling),
    "gap": ("section 2: the gap grows, largest at the end", _gap_grows),
    "copying": ("section 4: second copy near zero, first copy above uniform", _copying),
    "first copy excess": ("section 4: the first copy sits 0.63 nats above ln 64",
                          _first_copy_excess),
    "heads": ("section 4: previous-token head in layer 0, induction head in layer 1", _heads_form),
    "phase change": ("section 4: second-copy loss stalls, then falls", _phase_change),
    "logit lens": ("section 5: the 'embed' row echoes the input", _embed_row_echoes),
    "kv cache": ("section 7: same tokens with the cache; 73,728 B per token", _cache_same_tokens),
    "positions": ("section 7: about a hundred times as many positions", _many_more_positions),
    "unembedding": ("section 7: the unembedding is about a third of the work", _unembedding_share),
    "architecture": ("sections 2, 7, 8: counts equal Chapter 5's formula", _architecture_counts),
    "temperature": ("section 3: the entropy rises with tau, below log2 V",
                    _entropy_rises_with_temperature),
    "mask": ("section 8: without the mask the loss leaks, and the last position fails",
             _mask_leak),
    "mask se": ("section 8: the mask's gaps against their standard errors", _mask_gaps_with_se),
    "order": ("section 8: order test, invariant only without positions and mask", _order_test),
    "no positions": ("section 8: the model without wpe still learns", _no_positions_still_learns),
    "no positions se": ("section 8: without wpe, 0.04 nats below the full model, beyond 2 SE",
                        _no_positions_gap_with_se),
}


def notebook_claim_failures(ns: Namespace) -> list[str]:
    """One message per claim that does not hold (or could not be evaluated) in `ns`."""
    failures = []
    for name, (sentence, holds) in CLAIMS.items():
        try:
            ok = holds(ns)
        except Exception as error:  # a renamed variable must fail loudly, not pass
            failures.append(f"{name}: {sentence} -- could not be checked: {error!r}")
            continue
        if not ok:
            failures.append(f"{name}: {sentence} -- no longer true; revise the prose or the cell")
    return failures


def assert_notebook_claims(ns: Namespace) -> None:
    """Raise `NotebookClaimsError` listing every failed claim; silent when all hold."""
    failures = notebook_claim_failures(ns)
    if failures:
        raise NotebookClaimsError(
            f"{len(failures)} claim(s) of notebooks/gpt2_under_the_hood.py fail:\n  "
            + "\n  ".join(failures)
        )
