"""Chapter 22's miniature of the paper's method: data, model, SubLoRA training, coding, bound.

Modules: `corpus` (Markov source, WordNet glosses, document sets), `bayes` (the source's exact
population quantities), `model` (a small nanoGPT-style GPT with LoRA), `subspace` (the four
parametrizations of the ablation), `train` (AdamW, quantization-aware steps, DDP-ready),
`evaluate` (scoring whole documents), `experiment` (one run end to end), `tiers` (the default,
long and GPU tiers), `build_wordnet` (rebuilds the shipped corpus extract).

Importing this package pins PyTorch's CPU kernels (before torch is imported) so that a script
prints the same bytes on every x86-64 CPU with AVX2, whatever the caller's environment says:
`ATEN_CPU_CAPABILITY=avx2`, `MKL_CBWR=COMPATIBLE`, `ONEDNN_MAX_CPU_ISA=AVX2`, NumPy's OpenBLAS to
its AVX2 kernels (`OPENBLAS_CORETYPE=Haswell`) and NumPy's loops off AVX-512 (the pipeline's own
pinning, `explainer_tools.scripts.settings.CPU_PINNING_ENV`). Set `MINIATURE_CPU_PIN=off` to
keep the caller's settings, e.g. to measure how much the results move under other kernels.
"""

from __future__ import annotations

import os
import sys

CPU_PIN = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "COMPATIBLE", "ONEDNN_MAX_CPU_ISA": "AVX2",
           "OPENBLAS_CORETYPE": "Haswell",
           "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}

if os.environ.get("MINIATURE_CPU_PIN", "on") != "off":
    unpinned = any(os.environ.get(name) != value for name, value in CPU_PIN.items())
    if unpinned and ("torch" in sys.modules or "numpy" in sys.modules):
        print("miniature: torch or numpy was imported first; CPU kernels not pinned",
              file=sys.stderr)
    os.environ.update(CPU_PIN)
