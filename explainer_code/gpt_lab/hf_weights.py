"""Load GPT-2's weights from the local disk into `gpt_lab.model.GPT` -- never from the network.

Where we look, in order (`find_gpt2_weights`):

1. `$GPT2_WEIGHTS`: a folder with `config.json` and `model.safetensors` or `pytorch_model.bin`
   (the layout of the Hugging Face repository `openai-community/gpt2`). The value `off`
   disables the search: the pipeline sets it so the stored notebook never depends on what
   happens to be cached on the machine that executes it.
2. The Hugging Face cache: `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
   `~/.cache/huggingface/hub`, folders `models--openai-community--gpt2` or `models--gpt2`,
   any `snapshots/<revision>/`.

The key mapping (the same as nanoGPT's `GPT.from_pretrained`, [SOURCE: nanoGPT model.py]):
checkpoint keys may carry a `transformer.` prefix or not; `attn.bias` / `attn.masked_bias` are
stored causal masks, not parameters, and are dropped; the four projection matrices were saved by
OpenAI's `Conv1D` layer as (in, out) and are transposed into `nn.Linear`'s (out, in); the output
head is tied to `wte` and may be absent.

`safetensors` is not installed here, so `read_safetensors` reads the format directly: an 8-byte
little-endian header length, a JSON header {name: {dtype, shape, data_offsets}}, then the raw
little-endian tensor bytes.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Mapping
from pathlib import Path

import torch

from gpt_lab.model import GPT, GPTConfig

WEIGHTS_ENV = "GPT2_WEIGHTS"
DISABLED = "off"
HUB_FOLDERS = ("models--openai-community--gpt2", "models--gpt2")
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
CONV1D_WEIGHTS = (  # saved as (in, out) by OpenAI's Conv1D
    "attn.c_attn.weight",
    "attn.c_proj.weight",
    "mlp.c_fc.weight",
    "mlp.c_proj.weight",
)
SAFETENSORS_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def is_gpt2_folder(folder: Path) -> bool:
    return (folder / "config.json").is_file() and any(
        (folder / name).is_file() for name in WEIGHT_FILES
    )


def find_gpt2_weights(environ: Mapping[str, str] = os.environ) -> Path | None:
    """The first folder holding GPT-2 weights (see the module docstring), or None."""
    explicit = environ.get(WEIGHTS_ENV, "")
    if explicit == DISABLED:
        return None
    if explicit:
        folder = Path(explicit).expanduser()
        if not is_gpt2_folder(folder):
            raise FileNotFoundError(
                f"${WEIGHTS_ENV}={explicit} has no config.json with model.safetensors "
                "or pytorch_model.bin"
            )
        return folder
    if environ.get("HF_HUB_CACHE"):
        hub = Path(environ["HF_HUB_CACHE"])
    elif environ.get("HF_HOME"):
        hub = Path(environ["HF_HOME"]) / "hub"
    else:
        hub = Path(environ.get("HOME", "~")).expanduser() / ".cache" / "huggingface" / "hub"
    for name in HUB_FOLDERS:
        for snapshot in sorted((hub / name / "snapshots").glob("*")):
            if is_gpt2_folder(snapshot):
                return snapshot
    return None


def read_safetensors(path: Path) -> dict[str, torch.Tensor]:
    """Every tensor of a `.safetensors` file (float types only: all GPT-2 needs)."""
    raw = path.read_bytes()
    (header_len,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + header_len])
    body = memoryview(raw)[8 + header_len :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        dtype = SAFETENSORS_DTYPES[info["dtype"]]
        flat = torch.frombuffer(bytearray(body[begin:end]), dtype=dtype)
        tensors[name] = flat.reshape(info["shape"]).float()
    return tensors


def config_from_hf(hf_config: Mapping[str, object]) -> GPTConfig:
    """GPTConfig from a Hugging Face GPT-2 `config.json` (e.g. n_layer 12, n_embd 768)."""
    return GPTConfig(
        block_size=int(hf_config["n_positions"]),
        vocab_size=int(hf_config["vocab_size"]),
        n_layer=int(hf_config["n_layer"]),
        n_head=int(hf_config["n_head"]),
        n_embd=int(hf_config["n_embd"]),
        layer_norm_eps=float(hf_config.get("layer_norm_epsilon", 1e-5)),
    )


def state_dict_from_hf(hf: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Rename and transpose a GPT-2 checkpoint into `GPT`'s parameter names and shapes."""
    ours: dict[str, torch.Tensor] = {}
    for key, tensor in hf.items():
        name = key.removeprefix("transformer.")
        if name.split(".")[-2:] in (["attn", "bias"], ["attn", "masked_bias"]):
            continue  # stored causal masks (not `attn.c_attn.bias`, a real parameter)
        if name == "lm_head.weight":
            continue  # tied to wte
        if name.endswith(CONV1D_WEIGHTS):
            tensor = tensor.t()
        ours[f"transformer.{name}"] = tensor.contiguous()
    ours["lm_head.weight"] = ours["transformer.wte.weight"]
    return ours


def load_gpt2(folder: Path) -> GPT:
    """A `GPT` with the weights of the checkpoint in `folder`, in eval mode."""
    config = config_from_hf(json.loads((folder / "config.json").read_text(encoding="utf-8")))
    if (folder / "model.safetensors").is_file():
        hf = read_safetensors(folder / "model.safetensors")
    else:
        hf = torch.load(folder / "pytorch_model.bin", map_location="cpu", weights_only=True)
    model = GPT(config)
    model.load_state_dict(state_dict_from_hf(hf), strict=True)
    return model.eval()
