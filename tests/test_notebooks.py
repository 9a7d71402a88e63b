"""The companion notebook and its toolkit: tokenizer, model, GPT-2 weight loading, corpus,
and the execute / check machinery of `explainer_tools.notebooks`."""

from __future__ import annotations

import copy
import json
import struct
from pathlib import Path

import nbformat
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

from explainer_tools import notebooks

TINY = GPTConfig(block_size=16, vocab_size=50, n_layer=2, n_head=2, n_embd=8)
COMMITTED = notebooks.REPO_ROOT / "docs" / "notebooks" / "gpt2-under-the-hood.ipynb"
SOURCE = notebooks.REPO_ROOT / "notebooks" / "gpt2_under_the_hood.py"


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


# ---- comparable_text and check ---------------------------------------------------------------


def png(width: int, height: int, payload: bytes = b"") -> str:
    import base64

    ihdr = struct.pack(">II", width, height) + b"\x08\x06\x00\x00\x00"
    data = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0" * 4 + payload
    return base64.b64encode(data).decode()


def small_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_code_cell("print(1)", outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="loss 3.262\n")]),
        nbformat.v4.new_code_cell("figure()", outputs=[
            nbformat.v4.new_output("display_data", data={
                "image/png": png(100, 50, b"pixels"), "text/plain": "<Figure>"})]),
        nbformat.v4.new_code_cell("time()", metadata={"tags": ["nondeterministic"]}, outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="1.23 s\n")]),
        nbformat.v4.new_code_cell("html()", outputs=[
            nbformat.v4.new_output("execute_result", execution_count=4,
                                   data={"text/html": "<b>465</b>", "text/plain": "HTML"})]),
    ]
    return notebooks.normalise(nb)


def as_bytes(nb: nbformat.NotebookNode) -> bytes:
    return nbformat.writes(nb).encode()


def test_comparable_text_excludes_tagged_cells_and_nothing_else() -> None:
    nb = small_notebook()
    text = notebooks.comparable_text(as_bytes(nb))
    for expected in ["loss 3.262", "<b>465</b>", "[image/png 100x50: pixels not compared]",
                     "(excluded: the cell is tagged 'nondeterministic')", "time()", "# Title"]:
        assert expected in text
    assert "1.23 s" not in text

    def changed(edit) -> bool:
        other = copy.deepcopy(nb)
        edit(other)
        return notebooks.comparable_text(as_bytes(other)) != text

    def set_text(i: int, value: str):
        return lambda n: n.cells[i].outputs[0].__setitem__("text", value)

    assert changed(set_text(1, "loss 3.263\n"))  # deterministic output
    assert not changed(set_text(3, "9.99 s\n"))  # the tagged cell
    assert changed(lambda n: n.cells[4].outputs[0].data.__setitem__("text/html", "<b>466</b>"))
    assert changed(lambda n: n.cells[0].__setitem__("source", "# Other title"))
    assert changed(lambda n: n.cells[3].__setitem__("source", "time2()"))  # tagged: source counts
    assert changed(lambda n: n.cells[1].outputs.append(
        nbformat.v4.new_output("stream", name="stderr", text="Warning\n")))
    assert changed(lambda n: n.cells[2].outputs[0].data.__setitem__("image/png", png(100, 60)))
    assert not changed(  # same size, other pixels: by the documented rule, not compared
        lambda n: n.cells[2].outputs[0].data.__setitem__("image/png", png(100, 50, b"other"))
    )


def test_normalise_fixes_ids_and_metadata() -> None:
    nb = small_notebook()
    nb.cells[1].metadata["execution"] = {"iopub.status.busy": "2026-01-01T00:00:00"}
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.9"}
    out = notebooks.normalise(nb)
    assert [c.id for c in out.cells] == [f"cell-{i:03d}" for i in range(5)]
    assert out.cells[1].metadata == {} and out.cells[3].metadata == {"tags": ["nondeterministic"]}
    assert out.metadata == notebooks.NOTEBOOK_METADATA


def edit_first_deterministic_stdout(data: bytes) -> tuple[bytes, str]:
    """A copy of a stored notebook with one character of a deterministic output changed."""
    nb = nbformat.reads(data.decode(), as_version=4)
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type != "code" or "nondeterministic" in tags:
            continue
        for output in cell.outputs:
            if output.output_type == "stream" and "50257" in output.text:
                output.text = output.text.replace("50257", "50258")
                return nbformat.writes(nb).encode(), "50258"
    raise AssertionError("no deterministic output mentions 50257")


def test_check_fails_on_a_changed_stored_output(tmp_path, monkeypatch, capsys) -> None:
    """`check` against a re-execution (stubbed here with the committed notebook itself: the
    slow test below executes for real) passes on an unchanged copy, fails with a diff on an
    edited deterministic output, ignores edits of the timing cell, and writes nothing."""
    committed = COMMITTED.read_bytes()
    monkeypatch.setattr(notebooks, "execute_notebook", lambda source: committed)
    target = tmp_path / "copy.ipynb"
    monkeypatch.setattr(notebooks, "REPO_ROOT", tmp_path)
    source = tmp_path / "source.py"

    target.write_bytes(committed)
    assert notebooks.check_all({source: target}) == 0

    edited, marker = edit_first_deterministic_stdout(committed)
    target.write_bytes(edited)
    assert notebooks.check_all({source: target}) == 1
    out = capsys.readouterr().out
    assert marker in out and "differs from a fresh execution" in out
    assert target.read_bytes() == edited  # check writes nothing

    nb = nbformat.reads(committed.decode(), as_version=4)
    timed = [c for c in nb.cells if "nondeterministic" in c.get("metadata", {}).get("tags", [])]
    assert timed and timed[0].outputs
    timed[0].outputs[0]["text"] = "40 new tokens: 0.01 s with the cache, 99.99 s without\n"
    target.write_bytes(nbformat.writes(nb).encode())
    assert notebooks.check_all({source: target}) == 0


def test_committed_notebook_is_normalised_and_has_outputs() -> None:
    data = COMMITTED.read_bytes()
    nb = nbformat.reads(data.decode(), as_version=4)
    assert nbformat.writes(notebooks.normalise(copy.deepcopy(nb))).encode() + b"\n" == data
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.outputs for c in code), "every code cell of the stored notebook has outputs"
    assert any("image/png" in o.get("data", {}) for c in code for o in c.outputs)
    assert not any(o.output_type == "error" for c in code for o in c.outputs)
    headings = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "markdown"]
    for n in range(1, 8):
        assert any(h.startswith(f"## {n}. ") for h in headings), f"section {n} missing"
    assert any(h.startswith("## Exercises") for h in headings)


@pytest.mark.slow
def test_fresh_execution_matches_the_committed_notebook() -> None:
    """The real `make check` path: execute the source offline and compare with the committed
    notebook; then a copy with one deterministic output edited must not match."""
    fresh = notebooks.execute_notebook(SOURCE)
    committed = COMMITTED.read_bytes()
    assert notebooks.diff_notebooks(committed, fresh, "notebook") == ""
    edited, marker = edit_first_deterministic_stdout(committed)
    diff = notebooks.diff_notebooks(edited, fresh, "notebook")
    assert diff and marker in diff


def test_stream_chunking_does_not_change_the_comparison_or_the_stored_notebook() -> None:
    """The kernel splits printed text into chunks by timing; one chunk or two is the same."""

    def notebook_with(outputs: list[dict]) -> bytes:
        nb = nbformat.v4.new_notebook()
        cell = nbformat.v4.new_code_cell("print('a'); print('b')")
        cell["outputs"] = [nbformat.from_dict(o) for o in outputs]
        nb.cells = [cell]
        return nbformat.writes(notebooks.normalise(nb)).encode("utf-8")

    one = [{"output_type": "stream", "name": "stdout", "text": "a\nb\n"}]
    two = [
        {"output_type": "stream", "name": "stdout", "text": "a\n"},
        {"output_type": "stream", "name": "stdout", "text": ["b\n"]},
    ]
    interleaved = [*two[:1], {"output_type": "stream", "name": "stderr", "text": "w\n"}, two[1]]
    assert notebook_with(one) == notebook_with(two)
    assert notebooks.comparable_text(notebook_with(one)) == notebooks.comparable_text(
        notebook_with(two)
    )
    # different streams stay apart, in order
    assert notebooks.comparable_text(notebook_with(interleaved)).count("[stdout]") == 2


def test_kernel_runs_with_the_cpu_code_paths_pinned() -> None:
    """Training amplifies last-bit differences: the kernel must use the same code paths on
    every machine, or the stored notebook only matches on CPUs like the last one that ran it."""
    from explainer_tools.pipeline import CPU_PINNING_ENV

    assert CPU_PINNING_ENV == {
        "ATEN_CPU_CAPABILITY": "avx2",
        "MKL_CBWR": "AVX2",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
    }
    assert CPU_PINNING_ENV.items() <= notebooks.KERNEL_ENV.items()
