"""Chapter 5: the data flow through GPT-2 small, with the shape of every arrow, as a diagram.

Claims, numbered as the output blocks:
  [1] For T tokens, GPT-2 small (n_layer 12, n_head 12, n_embd 768; SECONDARY: paper App. E,
      p. 16) moves
      arrays of these shapes: ids (T,), stream (T, 768), fused q/k/v (T, 2,304), per-head
      queries, keys and values (12, T, 64), attention weights (12, T, T), MLP hidden layer
      (T, 3,072), logits (T, 50,304) [SOURCE: nanoGPT model.py]. The stream keeps its shape
      through all 12 blocks.
Figure: ch05_block_diagram.png (the same shapes, drawn on the arrows).
Deterministic: integer arithmetic and a fixed drawing; no randomness, no torch.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pacbound as pb
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from script_io import save_figure

N_LAYER, N_HEAD, N_EMBD = 12, 12, 768  # GPT-2 small   [SECONDARY: paper App. E, p. 16]
V_PAD = pb.NANOGPT_VOCAB_SIZE  # 50,304 rows of the tied table         [SOURCE: nanoGPT model.py]
FIGURE_NAME = "ch05_block_diagram.png"
# Okabe-Ito: one colour per kind of step.
KIND_COLOURS = {
    "table": "#56B4E9",  # a lookup or the tied head
    "norm": "#F0E442",  # LayerNorm
    "mix": "#E69F00",  # attention: the only step that mixes positions
    "local": "#009E73",  # per-position linear maps and GELU
    "out": "#CC79A7",  # softmax
}


def stage_shapes(
    d: int = N_EMBD, n_head: int = N_HEAD, vocab: int = V_PAD
) -> list[tuple[str, str, str]]:
    """(step, kind, shape of what leaves it) along one forward pass, T left symbolic."""
    d_head = d // n_head
    return [
        ("token ids", "table", "(T,)"),
        ("token + position embedding", "table", f"(T, {d:,})"),
        ("ln_1", "norm", f"(T, {d:,})"),
        ("c_attn: W_Q, W_K, W_V side by side", "local", f"(T, {3 * d:,})"),
        ("split into heads", "local", f"3 x ({n_head}, T, {d_head})"),
        ("scores, causal mask, softmax", "mix", f"({n_head}, T, T)"),
        ("weights x values, heads joined, W_O", "mix", f"(T, {d:,})"),
        ("add to the stream", "local", f"(T, {d:,})"),
        ("ln_2", "norm", f"(T, {d:,})"),
        ("MLP up + GELU", "local", f"(T, {4 * d:,})"),
        ("MLP down, add to the stream", "local", f"(T, {d:,})"),
        ("ln_f", "norm", f"(T, {d:,})"),
        ("head = token table, transposed", "table", f"(T, {vocab:,})"),
        ("softmax over the vocabulary", "out", f"(T, {vocab:,})"),
    ]


def block1_shapes() -> list[tuple[str, str, str]]:
    stages = stage_shapes()
    print(
        f"[1] One forward pass of GPT-2 small (n_layer = {N_LAYER}, n_head = {N_HEAD}, "
        f"n_embd = {N_EMBD}) on T tokens: the shape after each step"
    )
    for step, _kind, shape in stages:
        print(f"    {step:<38} -> {shape}")
    print(
        f"    steps 3-11 form one block, repeated {N_LAYER} times; the stream enters and leaves "
        f"each block as (T, {N_EMBD})"
    )
    assert 3 * N_EMBD == 2_304 and 4 * N_EMBD == 3_072 and N_EMBD // N_HEAD == 64
    assert V_PAD == 50_304 and stages[1][2] == stages[7][2] == stages[10][2] == "(T, 768)"
    return stages


def draw(stages: list[tuple[str, str, str]]) -> None:
    fig, ax = plt.subplots(figsize=(5.5, 8.6))
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.1, len(stages) + 0.1)
    ax.axis("off")
    box_w, box_h, x0 = 5.8, 0.56, 1.6
    ys = [len(stages) - 0.5 - i for i in range(len(stages))]
    for (step, kind, _shape), y in zip(stages, ys, strict=True):
        ax.add_patch(
            FancyBboxPatch(
                (x0, y - box_h / 2),
                box_w,
                box_h,
                boxstyle="round,pad=0.02,rounding_size=0.12",
                facecolor=KIND_COLOURS[kind],
                edgecolor="#333333",
                linewidth=0.8,
            )
        )
        ax.text(x0 + box_w / 2, y, step, ha="center", va="center", fontsize=10)
    for i in range(len(stages) - 1):  # arrows carry the shape of what flows along them
        top, bottom = ys[i] - box_h / 2, ys[i + 1] + box_h / 2
        ax.add_patch(
            FancyArrowPatch(
                (x0 + box_w / 2, top),
                (x0 + box_w / 2, bottom),
                arrowstyle="-|>",
                mutation_scale=10,
                color="#333333",
            )
        )
        ax.text(
            x0 + box_w / 2 + 0.15,
            (top + bottom) / 2,
            stages[i][2],
            fontsize=10,
            va="center",
            ha="left",
            color="#222222",
            family="monospace",
        )
    # The repeated block, and the two residual additions.
    first, last = ys[2] + box_h / 2 + 0.06, ys[10] - box_h / 2 - 0.06
    ax.add_patch(
        FancyBboxPatch(
            (x0 - 0.25, last),
            box_w + 0.5,
            first - last,
            boxstyle="round,pad=0.02",
            fill=False,
            linestyle="--",
            edgecolor="#555555",
        )
    )
    ax.text(
        x0 + box_w + 0.5,
        (first + last) / 2,
        f"one block\nx {N_LAYER}",
        fontsize=10,
        va="center",
        ha="left",
    )
    for start, end in ((1, 7), (7, 10)):
        ax.add_patch(
            FancyArrowPatch(
                (x0 - 0.05, ys[start] - 0.2),
                (x0 - 0.05, ys[end] + 0.1),
                connectionstyle="arc3,rad=0.35",
                arrowstyle="-|>",
                mutation_scale=9,
                color="#0072B2",
                lw=1.2,
            )
        )
    ax.text(
        0.0,
        (ys[1] + ys[7]) / 2,
        "residual stream",
        fontsize=10,
        color="#0072B2",
        ha="left",
        va="center",
        rotation=90,
    )
    ax.set_title("GPT-2 small on T tokens: shapes on the arrows", fontsize=10)
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME, dpi=130)
    plt.close(fig)


def main() -> None:
    print("Chapter 5 -- the data flow of GPT-2 small, with shapes (ch05_block_diagram.py)")
    stages = block1_shapes()
    draw(stages)
    print(f"Figure: {FIGURE_NAME}")
    print("All assertions passed.")


if __name__ == "__main__":
    main()
