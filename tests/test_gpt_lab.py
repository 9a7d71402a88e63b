"""The companion notebook's toolkit, `explainer_code/gpt_lab`: tokenizer, model, GPT-2 weight
loading, training corpus. (How the pipeline executes and compares notebooks:
test_notebook_pipeline.py.)"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
import torch
from gpt_lab import corpus, hf_weights
from gpt_lab.model import GPT, GPTConfig, generate
from gpt_lab.tokenizer import (
    GPT2_SPLIT_PATTERN,
    gpt2_encoding,
    gpt2_vocab_files,
    mergeable_ranks_from_encoder,
    unicode_to_byte,
)

TINY = GPTConfig(block_size=16, vocab_size=50, n_layer=2, n_head=2, n_embd=8)


# ---- tokenizer -------------------------------------------------------------------------------


def test_gpt2_tokenizer_facts() -> None:
    enc = gpt2_encoding()
    assert enc.encode("Hello world") == [15496, 995]
    assert enc.n_vocab == 50257
    assert enc.encode("<|endoftext|>", allowed_special="all") == [50256]
    assert enc.eot_token == 50256


def test_byte_table_is_a_bijection_over_256_bytes() -> None:
    table = unicode_to_byte()
    assert sorted(table.values()) == list(range(256))
    assert table["Ġ"] == ord(" ") and table["A"] == ord("A")


def test_ranks_match_tiktokens_own_reader(tmp_path: Path, monkeypatch) -> None:
    """Our reading of encoder.json equals tiktoken's reference reader of the same two files."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # its reader caches; keep it local
    encoder_path, merges_path = gpt2_vocab_files()
    reference = tiktoken.load.data_gym_to_mergeable_bpe_ranks(str(merges_path), str(encoder_path))
    ours = mergeable_ranks_from_encoder(json.loads(encoder_path.read_text(encoding="utf-8")))
    assert ours == reference
    assert len(ours) == 50256


@pytest.mark.parametrize(
    "text",
    [
        "Hello world",
        "  two  spaces, tabs\tand\nnewlines\n\n",
        "It's we'll they've I'm you'd DON'T",
        "Электрон заряжен отрицательно. 12345678 strawberry 🍓",
        "x = f(y)**2  # comment\n    return {'a': [1, 2]}",
    ],
)
def test_split_pattern_agrees_with_tiktokens_gpt2_pattern(text: str) -> None:
    """The original GPT-2 split (ours) and tiktoken's faster equivalent tokenize alike."""
    from tiktoken_ext.openai_public import r50k_pat_str

    enc = gpt2_encoding()
    reference = tiktoken.Encoding(
        name="reference",
        pat_str=r50k_pat_str,
        mergeable_ranks=enc._mergeable_ranks,
        special_tokens={"<|endoftext|>": 50256},
    )
    assert r50k_pat_str != GPT2_SPLIT_PATTERN  # two different patterns, same tokens
    assert enc.encode_ordinary(text) == reference.encode_ordinary(text)
    assert enc.decode(enc.encode_ordinary(text)) == text


# ---- model -----------------------------------------------------------------------------------


def tiny_model(seed: int = 0) -> GPT:
    torch.manual_seed(seed)
    model = GPT(TINY).eval()
    with torch.no_grad():  # non-zero biases and layer-norm shifts, so every parameter matters
        for p in model.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return model


@torch.no_grad()
def test_cache_gives_the_same_logits_as_a_full_pass() -> None:
    model = tiny_model()
    ids = torch.tensor([[3, 1, 4, 1, 5, 9, 2, 6]])
    full = model(ids).logits
    first = model(ids[:, :5])
    rest = model(ids[:, 5:], cache=first.cache)
    stitched = torch.cat([first.logits, rest.logits], dim=1)
    torch.testing.assert_close(stitched, full, rtol=1e-5, atol=1e-5)
    assert generate(model, [3, 1, 4], 6, use_cache=True) == generate(
        model, [3, 1, 4], 6, use_cache=False
    )


@torch.no_grad()
def test_attention_is_causal_and_traces_have_the_documented_shapes() -> None:
    model = tiny_model()
    a = model(torch.tensor([[3, 1, 4, 1, 5]]), trace=True)
    b = model(torch.tensor([[3, 1, 4, 7, 7]]))
    torch.testing.assert_close(a.logits[:, :3], b.logits[:, :3])  # later tokens are invisible
    assert not torch.allclose(a.logits[:, 3:], b.logits[:, 3:])
    assert len(a.residual) == TINY.n_layer + 1 and len(a.attention) == TINY.n_layer
    assert a.attention[0].shape == (1, TINY.n_head, 5, 5)
    torch.testing.assert_close(a.attention[1].sum(-1), torch.ones(1, TINY.n_head, 5))
    assert float(a.attention[0][0, :, 0, 1:].abs().max()) == 0.0
    torch.testing.assert_close(model.unembed(a.residual[-1]), a.logits)


def test_gpt2_small_shape_has_124_439_808_parameters() -> None:
    """GPT-2 small with its 50,257-token vocabulary and 1,024 positions (tied head counted once)."""
    with torch.device("meta"):
        model = GPT(GPTConfig())
    assert model.num_params() == 124_439_808


# ---- GPT-2 weights from the local disk ---------------------------------------------------------

CONV1D = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight")


def to_hf_layout(model: GPT, prefix: str, with_head: bool) -> dict[str, torch.Tensor]:
    """What a Hugging Face GPT-2 checkpoint holds, written independently of the loader:
    Conv1D weights as (in, out), causal-mask buffers, optional prefix and head."""
    hf: dict[str, torch.Tensor] = {}
    for name, tensor in model.state_dict().items():
        if name == "lm_head.weight":
            continue
        key = name.removeprefix("transformer.")
        hf[prefix + key] = tensor.t().contiguous() if key.endswith(CONV1D) else tensor.clone()
    for i in range(model.config.n_layer):
        n = model.config.block_size
        hf[f"{prefix}h.{i}.attn.bias"] = torch.tril(torch.ones(n, n)).view(1, 1, n, n)
    if with_head:
        hf["lm_head.weight"] = model.lm_head.weight.detach().clone()
    return hf


def write_safetensors(path: Path, tensors: dict[str, torch.Tensor]) -> None:
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    blobs, offset = [], 0
    for name, tensor in tensors.items():
        data = tensor.to(torch.float32).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"".join(blobs))


def write_hf_folder(folder: Path, model: GPT, fmt: str) -> None:
    folder.mkdir(parents=True)
    c = model.config
    config = {"model_type": "gpt2", "n_positions": c.block_size, "n_ctx": c.block_size,
              "vocab_size": c.vocab_size, "n_layer": c.n_layer, "n_head": c.n_head,
              "n_embd": c.n_embd, "layer_norm_epsilon": 1e-5}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    if fmt == "safetensors":
        write_safetensors(folder / "model.safetensors", to_hf_layout(model, "", with_head=False))
    else:
        torch.save(to_hf_layout(model, "transformer.", with_head=True),
                   folder / "pytorch_model.bin")


@pytest.mark.parametrize("fmt", ["safetensors", "bin"])
@torch.no_grad()
def test_load_gpt2_reproduces_the_saved_model(tmp_path: Path, fmt: str) -> None:
    original = tiny_model(seed=1)
    write_hf_folder(tmp_path / "gpt2", original, fmt)
    loaded = hf_weights.load_gpt2(tmp_path / "gpt2")
    assert loaded.config == TINY
    ids = torch.tensor([[1, 2, 3, 4, 5, 6, 7]])
    torch.testing.assert_close(loaded(ids).logits, original(ids).logits, rtol=0, atol=0)
    assert loaded.lm_head.weight is loaded.transformer.wte.weight


def test_find_gpt2_weights_order_and_switch(tmp_path: Path) -> None:
    model = tiny_model()
    explicit = tmp_path / "mine"
    write_hf_folder(explicit, model, "safetensors")
    snapshot = tmp_path / "home" / ".cache/huggingface/hub/models--gpt2/snapshots/abc123"
    write_hf_folder(snapshot, model, "bin")
    home = {"HOME": str(tmp_path / "home")}

    assert hf_weights.find_gpt2_weights({**home, "GPT2_WEIGHTS": str(explicit)}) == explicit
    assert hf_weights.find_gpt2_weights(home) == snapshot
    assert hf_weights.find_gpt2_weights({**home, "GPT2_WEIGHTS": "off"}) is None
    assert hf_weights.find_gpt2_weights({"HOME": str(tmp_path / "nowhere")}) is None
    with pytest.raises(FileNotFoundError):
        hf_weights.find_gpt2_weights({"GPT2_WEIGHTS": str(tmp_path / "missing")})


# ---- corpus ----------------------------------------------------------------------------------


def test_compact_vocab_round_trip_and_unknown_tokens() -> None:
    vocab = corpus.CompactVocab.from_ids([995, 15496, 50256, 995])
    assert vocab.gpt2_ids == (50256, 995, 15496)
    assert vocab.to_gpt2(vocab.to_compact([15496, 995, 50256])) == [15496, 995, 50256]
    with pytest.raises(KeyError, match="318"):
        vocab.to_compact([318])


def test_split_interleaves_validation_chunks() -> None:
    train, val = corpus.split_train_val(torch.arange(100), chunk=10, every=5)
    assert val.tolist() == [*range(40, 50), *range(90, 100)]
    assert sorted(train.tolist() + val.tolist()) == list(range(100))


def test_annotations_are_stripped_from_the_training_text() -> None:
    page = "[MY EXPLANATION] A head <!-- embed: output x.py -->reads [PAPER App. E, p. 16] keys."
    assert corpus.strip_annotations(page) == "A head reads keys."
