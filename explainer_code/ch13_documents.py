"""Chapter 13: documents as samples, and how the authors' code scores a long document.

Claims, numbered as the output blocks:
  [1] The population: OpenWebText has 8,013,769 documents; nanoGPT's split (test_size 0.0005,
      seed 2357) keeps 8,009,762 for training [SOURCE: data/openwebtext/prepare.py:20-32
      @c606ea6], the code's num_docs [SOURCE: sublora/sublora_pipeline.py:59]. The sequence count
      8,823,811 [SOURCE: sublora_pipeline.py:58] is 9,035,582,198 tokens / 1024, rounded up.
  [2] One sample = one document; its loss is the mean over its tokens, so short and long
      documents weigh the same (a toy of three documents); drawing n = 10,000 of N documents
      uniformly with replacement [SOURCE: sublora/utils.py:100-101] repeats a few of them.
  [3] The windows of `compute_bound_scores` [SOURCE: sublora/bounds/bound_utils.py:50-72],
      re-implemented as index arithmetic (no model), on a toy document of 24 tokens with a window
      of 10 and a shift of 3: the first window scores tokens 0-9, later windows score only their
      last 3 tokens.
  [4] For every document length from 1 to 60 (toy sizes) and from 1 to 4,096 (real sizes, window
      1024, shift 100): every token is scored exactly once, and every token after the first
      window sees at least window - shift = 924 earlier tokens (925 inputs with its own).
  [5] Real-size arithmetic for a 3,000-token document: 21 forward passes, scored
      1024 + 19 x 100 + 76; the compute, in tokens fed to the model, relative to one pass.
Deterministic: integer arithmetic only. The figure ch13_windows.png draws the toy windows.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle
from script_glue import glue
from script_io import save_figure

OWT_DOCUMENTS = 8_013_769  # documents in OpenWebText        [SOURCE: prepare.py:20]
TEST_SIZE = 0.0005  # nanoGPT's validation fraction            [SOURCE: prepare.py:24]
NUM_DOCS = 8_009_762  # the code's num_docs                    [SOURCE: sublora_pipeline.py:59]
TRAIN_TOKENS = 9_035_582_198  # tokens in train.bin            [SOURCE: prepare.py:76]
DATA_SIZE = 8_823_811  # the code's data_size                  [SOURCE: sublora_pipeline.py:58]
BLOCK_SIZE = 1024  # window                                    [SOURCE: sublora_pipeline.py:56]
SLIDE = (
    100  # sliding_window_size                             [SOURCE: config/sublora_bounds.yaml:38]
)
N_SAMPLE = (
    10_000  # bound_samples                             [SOURCE: config/sublora_bounds.yaml:36]
)
TOY_BLOCK, TOY_SLIDE, TOY_LEN = 10, 3, 24  # the toy document of block [3] and the figure
TOY_DOCS = ("short", "middle", "long")  # the three toy documents of block [2], by length
FIGURE_NAME = "ch13_windows.png"


@dataclass(frozen=True)
class Window:
    start: int  # first input position fed to the model
    end: int  # one past the last input position
    scored: range  # target positions whose loss is kept


def authors_windows(n_tokens: int, block_size: int, slide: int) -> list[Window]:
    """The index arithmetic of `compute_bound_scores` (bound_utils.py:50-72), without a model.

    Position t stands for target Y[t], predicted from inputs X[start..t] of its window.
    """
    if n_tokens <= block_size:  # BU:50: one forward pass scores everything (BU:79-85)
        return [Window(0, n_tokens, range(n_tokens))]
    windows = [Window(0, block_size, range(block_size))]  # BU:52-57
    iters = math.ceil((n_tokens - block_size) / slide)  # BU:59
    for i in range(iters):
        start = (i + 1) * slide  # BU:64: X[:, (i+1)s : B + (i+1)s]
        end = min(block_size + (i + 1) * slide, n_tokens)
        rows = (end - start) - (block_size - slide)  # BU:65: logits[:, B - s:] keeps these rows
        targets = range(start, end)  # BU:67
        kept = targets[-rows:] if i == iters - 1 else targets[-slide:]  # BU:69-72
        assert len(kept) == rows  # the kept targets line up with the kept logits
        windows.append(Window(start, end, kept))
    return windows


def scored_positions(windows: list[Window]) -> np.ndarray:
    return np.concatenate([np.arange(w.scored.start, w.scored.stop) for w in windows])


def min_inputs_after_first(windows: list[Window]) -> int | None:
    """Fewest inputs any target outside the first window reads (its own input included)."""
    later = [w.scored.start - w.start + 1 for w in windows[1:]]
    return min(later) if later else None


def block1_population() -> None:
    print("[1] The population the bound is about")
    n_val = math.ceil(TEST_SIZE * OWT_DOCUMENTS)  # datasets' train_test_split rounds the test up
    n_train = OWT_DOCUMENTS - n_val
    print(
        f"    OpenWebText documents {glue('owt_documents', OWT_DOCUMENTS, ',')}; validation "
        f"ceil({glue('test_size', TEST_SIZE)} x {OWT_DOCUMENTS:,}) = "
        f"{glue('n_validation', n_val, ',')}; training {glue('n_train', n_train, ',')}"
    )
    assert n_train == NUM_DOCS and n_val == 4_007
    exact = TRAIN_TOKENS / BLOCK_SIZE
    print(
        f"    training tokens {glue('train_tokens', TRAIN_TOKENS, ',')} / "
        f"{glue('sequence_tokens', BLOCK_SIZE)} = {glue('sequences_exact', exact, ',.2f')} "
        f"sequences; the code's data_size {glue('data_size', DATA_SIZE, ',')} is the ceiling"
    )
    assert math.ceil(exact) == DATA_SIZE and math.floor(exact) == DATA_SIZE - 1
    mean_len = TRAIN_TOKENS / NUM_DOCS
    print(
        f"    mean document length {glue('mean_doc_tokens', mean_len, ',.2f')} tokens "
        "(each ends with one end-of-text token)"
    )
    assert 1128 < mean_len < 1129


def block2_documents() -> None:
    print("[2] One sample is one document; its loss is the mean over its tokens")
    lengths = np.array([10, 100, 1000])
    per_token = np.array([6.0, 4.0, 3.0])  # bits per token, each document's own mean
    doc_mean = per_token.mean()
    token_mean = (lengths * per_token).sum() / lengths.sum()
    for doc, n, x in zip(TOY_DOCS, lengths, per_token, strict=True):
        print(
            f"    document of {glue(f'{doc}_doc_tokens', int(n), '>4')} tokens, "
            f"mean loss {glue(f'{doc}_doc_loss', x, '.1f')} bits per token"
        )
    print(
        f"    mean over documents {glue('mean_over_docs', doc_mean, '.4f')}; "
        f"mean over tokens {glue('mean_over_tokens', token_mean, '.4f')} bits per token"
    )
    assert abs(doc_mean - 13 / 3) < 1e-12 and abs(token_mean - 3460 / 1110) < 1e-12
    repeats = N_SAMPLE * (N_SAMPLE - 1) / (2 * NUM_DOCS)
    reached = 1 - (1 - 1 / NUM_DOCS) ** N_SAMPLE
    print(
        f"    n = {glue('n_draws', N_SAMPLE, ',')} draws with replacement from "
        f"N = {glue('draw_pool', NUM_DOCS, ',')} documents:"
    )
    print(
        f"    about {glue('repeat_pairs', repeats, '.2f')} pairs of draws expected to hit "
        "the same document;"
    )
    print(
        "    a given document is drawn at least once with probability "
        f"{glue('drawn_once_pct', 100 * reached, '.4f')} %"
    )
    assert 6.2 < repeats < 6.3


def block3_toy_windows() -> None:
    print(
        f"[3] Toy document: {glue('toy_len', TOY_LEN)} tokens, window "
        f"{glue('toy_window', TOY_BLOCK)}, shift {glue('toy_shift', TOY_SLIDE)}"
    )
    windows = authors_windows(TOY_LEN, TOY_BLOCK, TOY_SLIDE)
    for j, w in enumerate(windows, start=1):
        inputs = [t - w.start + 1 for t in w.scored]
        key = f"toy_pass{j}"  # toy_pass1_number ... toy_pass6_reads_max
        print(
            f"    pass {glue(f'{key}_number', j)}: "
            f"inputs {glue(f'{key}_input_first', w.start, '>2')}-"
            f"{glue(f'{key}_input_last', w.end - 1, '>2')} "
            f"({glue(f'{key}_input_count', w.end - w.start, '>2')} tokens), "
            f"scores {glue(f'{key}_scored_first', w.scored.start, '>2')}-"
            f"{glue(f'{key}_scored_last', w.scored.stop - 1, '>2')}, "
            f"inputs read per scored token {glue(f'{key}_reads_min', min(inputs))}-"
            f"{glue(f'{key}_reads_max', max(inputs))}"
        )
    pos = scored_positions(windows)
    assert np.array_equal(np.sort(pos), np.arange(TOY_LEN)) and len(windows) == 6
    assert min_inputs_after_first(windows) == TOY_BLOCK - TOY_SLIDE + 1
    print(
        f"    every token scored once; after the first pass each reads at least "
        f"{glue('toy_min_inputs', TOY_BLOCK - TOY_SLIDE + 1)} inputs "
        f"({glue('toy_min_earlier', TOY_BLOCK - TOY_SLIDE)} earlier tokens and its own)"
    )


def check_lengths(max_len: int, block_size: int, slide: int) -> tuple[int, int]:
    """Check every length 1..max_len; return (lengths checked, fewest inputs after window 1)."""
    fewest = block_size
    for n in range(1, max_len + 1):
        windows = authors_windows(n, block_size, slide)
        pos = scored_positions(windows)
        assert pos.size == n and np.array_equal(np.sort(pos), np.arange(n)), n
        later = min_inputs_after_first(windows)
        if later is not None:
            fewest = min(fewest, later)
    return max_len, fewest


def block4_every_token_once() -> None:
    print("[4] Every token scored exactly once, for every document length")
    sizes = (("toy", TOY_BLOCK, TOY_SLIDE, 60), ("real", BLOCK_SIZE, SLIDE, 4096))
    for size, block_size, slide, max_len in sizes:
        n, fewest = check_lengths(max_len, block_size, slide)
        key = f"check_{size}"  # check_toy_window ... check_real_min_earlier
        print(
            f"    window {glue(f'{key}_window', block_size)}, shift {glue(f'{key}_shift', slide)}: "
            f"lengths {glue(f'{key}_len_min', 1)}-{glue(f'{key}_len_max', n, ',')} checked; "
            f"after the first window every token reads >= {glue(f'{key}_min_inputs', fewest)} "
            f"inputs ({glue(f'{key}_min_earlier', fewest - 1)} earlier tokens)"
        )
        assert fewest == block_size - slide + 1
    print(f"    real sizes: at least {BLOCK_SIZE - SLIDE} earlier tokens of context")


def block5_real_size() -> None:
    n_tokens = 3_000
    print(
        f"[5] Real sizes: a {glue('real_doc_tokens', n_tokens, ',')}-token document, window "
        f"{glue('real_doc_window', BLOCK_SIZE)}, shift {glue('real_doc_shift', SLIDE)}"
    )
    windows = authors_windows(n_tokens, BLOCK_SIZE, SLIDE)
    counts = [len(w.scored) for w in windows]
    iters = math.ceil((n_tokens - BLOCK_SIZE) / SLIDE)
    print(
        f"    shifted passes ceil(({n_tokens:,} - {BLOCK_SIZE}) / {SLIDE}) = "
        f"{glue('shifted_passes', iters)}; forward passes {glue('forward_passes', len(windows))}"
    )
    print(
        f"    scored: {glue('first_pass_scores', counts[0])} + "
        f"{glue('middle_passes', len(counts) - 2)} x {glue('middle_pass_scores', counts[1])} + "
        f"{glue('last_pass_scores', counts[-1])} = {glue('scored_total', sum(counts), ',')}"
    )
    assert counts[0] == BLOCK_SIZE and set(counts[1:-1]) == {SLIDE} and sum(counts) == n_tokens
    assert len(windows) == 21 and counts[-1] == 76
    fed = sum(w.end - w.start for w in windows)
    print(
        f"    tokens fed to the model {glue('tokens_fed', fed, ',')}: "
        f"{glue('fed_ratio', fed / n_tokens, '.2f')} times the document's length"
    )
    assert fed == 1024 * 20 + 1000


def draw_figure() -> None:
    windows = authors_windows(TOY_LEN, TOY_BLOCK, TOY_SLIDE)
    fig, ax = plt.subplots(figsize=(5.5, 4.4))
    for j, w in enumerate(windows):
        y = len(windows) - j
        ax.add_patch(
            Rectangle(
                (w.start, y - 0.35),
                w.end - w.start,
                0.7,
                facecolor="#CFE3F2",
                edgecolor="#0072B2",
                lw=0.8,
            )
        )
        ax.add_patch(
            Rectangle(
                (w.scored.start, y - 0.35),
                len(w.scored),
                0.7,
                facecolor="#E69F00",
                edgecolor="#0072B2",
                lw=0.8,
            )
        )
        ax.text(-0.6, y, f"pass {j + 1}", ha="right", va="center")
    ax.add_patch(
        Rectangle(
            (0, -0.3),
            0.01,
            0.01,
            facecolor="#CFE3F2",
            edgecolor="#0072B2",
            label="context only (read, not scored)",
        )
    )
    ax.add_patch(
        Rectangle(
            (0, -0.3),
            0.01,
            0.01,
            facecolor="#E69F00",
            edgecolor="#0072B2",
            label="scored in this pass",
        )
    )
    ax.set_xlim(-3.5, TOY_LEN + 0.5)
    ax.set_ylim(0.3, len(windows) + 1.5)
    ax.set_xticks(range(0, TOY_LEN + 1, 3))
    ax.set_yticks([])
    ax.set_xlabel("token position in the document")
    ax.set_title(
        f"Toy document of {TOY_LEN} tokens, window {TOY_BLOCK}, shift {TOY_SLIDE}\n"
        f"(real: window {BLOCK_SIZE}, shift {SLIDE})",
        fontsize=10,
    )
    ax.legend(loc="upper right", frameon=False, borderaxespad=0.0)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME, dpi=150)
    plt.close(fig)


def main() -> None:
    print("Chapter 13 -- documents as samples (ch13_documents.py)")
    block1_population()
    block2_documents()
    block3_toy_windows()
    block4_every_token_once()
    block5_real_size()
    draw_figure()
    print(f"Figure: {FIGURE_NAME}")
    print("All assertions passed.")


if __name__ == "__main__":
    main()
