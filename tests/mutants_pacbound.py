"""Mutants of pacbound: bounds, codes, counts, chains, projectors, LoRA and the subspace model
(tests/mutate.py runs them)."""

# ruff: noqa: E501  (a snippet is an exact line of code: kept whole, it stays greppable)

from __future__ import annotations

from mutate import Mutant


def mutant(name: str, module: str, old: str, new: str, *tests: str) -> Mutant:
    return Mutant(name, f"explainer_code/pacbound/{module}", old, new, tests)


T_OCCAM = "tests/test_pacbound_occam.py"
T_SUB = "tests/test_pacbound_subsampling.py"
T_CODING = "tests/test_pacbound_coding.py"
T_MARKOV = "tests/test_pacbound_markov.py"
T_SPACE = "tests/test_pacbound_subspace.py"
T_NEW = "tests/test_pacbound_mutants.py"
# test_pacbound.py builds torch models (about 40 s under load): the counts' examples suffice
T_COUNTS = f"{T_NEW}::test_the_counting_modules_examples_hold_without_torch"
# test_pacbound_coding.py takes 14 s: its quantizer and message tests (and doctests) suffice here
Q_TESTS = (T_CODING, "-k", "quantizer or docstring")
M_TESTS = (T_CODING, "-k", "message or entropy or docstring")

MUTANTS = [
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
           "    edges = np.linspace(-largest, largest, levels + 1)", Q_TESTS),
    Mutant("pacbound: entropy in nats", "explainer_code/pacbound/message.py",
           "    return float(-(p * np.log2(p)).sum())", "    return float(-(p * np.log(p)).sum())",
           M_TESTS),
    # occam
    mutant("pacbound: a one-bit message allowed in the authors' code", "occam.py",
           "    if message_bits < 1:\n        raise ValueError(f\"message_bits must be 0 or at least",
           "    if message_bits < 0:\n        raise ValueError(f\"message_bits must be 0 or at least",
           T_OCCAM, T_NEW),
    mutant("pacbound: eps = 1 accepted", "occam.py", "    if not 0.0 < eps < 1.0:\n"
           "        raise ValueError(f\"eps must lie strictly", "    if not 0.0 < eps <= 1.0:\n"
           "        raise ValueError(f\"eps must lie strictly", T_OCCAM),
    mutant("pacbound: negative codeword lengths accepted", "occam.py",
           "        if length < 0:", "        if length < -1:", T_OCCAM, T_NEW),
    # subsampling
    mutant("pacbound: the Hoeffding term at the full eps", "subsampling.py",
           "    hoeffding = math.sqrt(-math.log((1.0 - rho) * eps) / (2 * n_sample))",
           "    hoeffding = math.sqrt(-math.log(eps) / (2 * n_sample))", T_SUB),
    mutant("pacbound: the grid's union bound forgotten", "subsampling.py",
           "            eps=eps / grid_size,", "            eps=eps,", T_SUB),
    mutant("pacbound: the Occam term over the sample", "subsampling.py",
           "    occam = math.sqrt((complexity_nats - math.log(rho * eps)) / (2 * n_population))",
           "    occam = math.sqrt((complexity_nats - math.log(rho * eps)) / (2 * n_sample))", T_SUB),
    mutant("pacbound: an empty grid accepted", "subsampling.py",
           "    if len(train_errors) != len(loss_ranges) or not train_errors:",
           "    if len(train_errors) != len(loss_ranges):", T_SUB, T_NEW),
    # smoothing
    mutant("pacbound: loss range without the 1", "smoothing.py",
           "    return math.log2(1.0 + (1.0 - alpha) * vocab / alpha)",
           "    return math.log2((1.0 - alpha) * vocab / alpha)", T_SUB),
    mutant("pacbound: alpha = 0 accepted", "smoothing.py",
           "    if not 0.0 < alpha <= 1.0:", "    if not 0.0 <= alpha <= 1.0:", T_SUB),
    mutant("pacbound: array probabilities unchecked", "smoothing.py",
           "        if np.any((p < 0.0) | (p > 1.0)):", "        if False:", T_SUB, T_NEW),
    # quantize
    mutant("pacbound: empty bins take the right edge", "quantize.py",
           "if np.any(codes == k) else edges[k]", "if np.any(codes == k) else edges[k + 1]",
           *Q_TESTS),
    mutant("pacbound: the codebook kept in float64", "quantize.py",
           "    return codes, centroids.astype(np.float16)", "    return codes, centroids",
           *Q_TESTS),
    mutant("pacbound: non-finite weights accepted", "quantize.py",
           "    if not np.all(np.isfinite(vec)):", "    if False:", *Q_TESTS),
    # message
    mutant("pacbound: coded bits without the final bit", "message.py",
           "    coded = math.ceil(d * entropy) + 1", "    coded = math.ceil(d * entropy)", *M_TESTS),
    mutant("pacbound: counts rounded down", "message.py",
           "    count_bits = math.ceil(math.log2(d)) * levels",
           "    count_bits = math.floor(math.log2(d)) * levels", *M_TESTS),
    # arithmetic coder
    mutant("pacbound: the coder's underflow case dropped", "arithmetic.py",
           "            elif low >= _QUARTER and high < _HALF + _QUARTER:  # underflow: straddles"
           " the middle\n                pending += 1", "            elif False:\n"
           "                pending += 1", f"{T_CODING}::test_round_trip_long_underflow_runs"),
    # coding a zero-count symbol never ends: the test's timeout kills it, after 20 s, not 120
    Mutant("pacbound: a zero-count symbol coded", "explainer_code/pacbound/arithmetic.py",
           "        if c_lo == c_hi:\n", "        if False:\n", (f"{T_CODING}::test_rejects_bad_input",),
           timeout=20),
    mutant("pacbound: counts over the coder's limit accepted", "arithmetic.py",
           "    if cum[-1] > MAX_TOTAL:", "    if False:", f"{T_CODING}::test_rejects_bad_input"),
    mutant("pacbound: symbols out of range accepted", "arithmetic.py",
           "    if seq and (min(seq) < 0 or max(seq) >= n_symbols):",
           "    if seq and min(seq) < 0:", f"{T_CODING}::test_rejects_bad_input"),
    # params
    mutant("pacbound: block without its layer-norm biases", "params.py",
           "    return 12 * n_embd**2 + (13 if bias else 2) * n_embd",
           "    return 12 * n_embd**2 + (11 if bias else 2) * n_embd",
           T_COUNTS),
    mutant("pacbound: LoRA on W_Q only", "params.py",
           "    per_block = 2 * lora_factor_count(n_embd, n_embd, r)  # W_Q and W_V",
           "    per_block = lora_factor_count(n_embd, n_embd, r)  # W_Q and W_V",
           T_COUNTS),
    mutant("pacbound: the fused bias forgotten", "params.py",
           "    fused_bias = 3 * n_embd * n_layer if use_mergedlinear else 0",
           "    fused_bias = 0", T_COUNTS),
    mutant("pacbound: position embedding always counted", "params.py",
           "        + (block_size * n_embd if include_pos else 0)",
           "        + block_size * n_embd", T_COUNTS),
    # gpt2
    mutant("pacbound: padding rounds down", "gpt2.py",
           "    return -(-vocab_size // multiple) * multiple",
           "    return (vocab_size // multiple) * multiple", T_COUNTS),
    mutant("pacbound: random guess in nats", "gpt2.py", "    return math.log2(vocab_size)",
           "    return math.log(vocab_size)", T_COUNTS),
    # markov
    mutant("pacbound: the first token after the last one", "markov.py",
           "    prev[:, 0] = vocab\n", "    prev[:, 0] = vocab - 1\n", T_MARKOV),
    mutant("pacbound: stationary law not normalised", "markov.py",
           "    return pi / pi.sum()", "    return pi", T_MARKOV),
    mutant("pacbound: the chain's start row used as a state", "markov.py",
           "        pi[t, :vocab] = pi[t - 1] @ chain", "        pi[t, :vocab] = pi[0] @ chain",
           T_MARKOV),
    mutant("pacbound: top-1 table all ones", "markov.py",
           "    table[np.arange(len(predictions)), predictions] = 0.0\n", "", T_MARKOV),
    # projectors (the slow file: only the tests that build projectors)
    mutant("pacbound: kron transpose without the permutation", "projectors.py",
           "        u[self.perm] = v  # undo the permutation", "        u[:] = v  # undo the permutation",
           f"{T_SPACE}::test_shapes_and_apply_matches_dense"),
    mutant("pacbound: sparse values without the D^(-1/4) scale", "projectors.py",
           "    values = rng.choice(np.array([-1.0, 1.0]), size=nnz) / math.sqrt(s)",
           "    values = rng.choice(np.array([-1.0, 1.0]), size=nnz)",
           f"{T_SPACE}::test_random_columns_have_unit_norm_on_average"),
    mutant("pacbound: d > D accepted", "projectors.py", "    if d > D:\n", "    if d > D + 1:\n",
           f"{T_SPACE}::test_bad_arguments", T_NEW),
    mutant("pacbound: the remainder block at scale 1/sqrt(D) always", "projectors.py",
           "    e_scale = 1 / math.sqrt(D if exact or De == 0 else De)",
           "    e_scale = 1 / math.sqrt(D)", f"{T_SPACE}::test_random_columns_have_unit_norm_on_average",
           T_NEW),
    # lora
    mutant("pacbound: LoRA update without its scaling", "lora.py",
           "        return y + self.scaling * (self.dropout(x) @ self.lora_A.T @ self.lora_B.T)",
           "        return y + (self.dropout(x) @ self.lora_A.T @ self.lora_B.T)",
           f"{T_SPACE}::test_lora_update_formula_and_grads"),
    mutant("pacbound: a merged layer adds the update twice", "lora.py",
           "        if self.merged:\n            return y\n", "", f"{T_SPACE}::test_merge_equals_unmerged_in_eval"),
    mutant("pacbound: rank 0 accepted", "lora.py", "        if r <= 0:", "        if r < 0:",
           f"{T_SPACE}::test_bad_arguments", T_NEW),
    # subspace
    mutant("pacbound: unknown parameter names accepted", "subspace.py",
           "        if missing:\n", "        if False:\n",
           f"{T_SPACE}::test_subspace_rejects_merge_on_eval_and_unknown_names", T_NEW),
    mutant("pacbound: merge_on_eval accepted", "subspace.py",
           "            if isinstance(m, LoRALinear) and m.merge_on_eval:", "            if False:",
           f"{T_SPACE}::test_subspace_rejects_merge_on_eval_and_unknown_names"),
    mutant("pacbound: a projector of another shape accepted", "subspace.py",
           "        if (self.projector.D, self.projector.d) != (self.D, d):", "        if False:",
           T_NEW),
    # the package: lazy attributes
    mutant("pacbound: unknown attributes return None", "__init__.py",
           "    raise AttributeError(f\"module 'pacbound' has no attribute {name!r}\")",
           "    return None", T_NEW),
    mutant("pacbound: a lazy name from the wrong module", "__init__.py",
           "    \"kron_shapes\": \"pacbound.projectors\",", "    \"kron_shapes\": \"pacbound.lora\",",
           T_NEW),
]
