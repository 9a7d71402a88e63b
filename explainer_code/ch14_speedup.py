"""Erratum E45: the speed-up of subsampled bound evaluation, from the authors' own timings.

Claims, numbered as the output blocks:
  [1] The authors' README [SOURCE: README.md:12 @c606ea6] times the bound evaluation on
      OpenWebText at 45 minutes on one GPU with subsampling, against 3 days on 8 GPUs without.
      In wall-clock time that is 3 x 24 x 60 / 45 = 96 times faster; in GPU time (GPU-minutes)
      8 x 96 = 768 times. Neither ratio is 900, the figure of the v2 abstract.
  [2] What subsampling saves in scored documents: n = 10,000 of N = 8,009,762 training documents
      [SOURCE: config/sublora_bounds.yaml:36; sublora/sublora_pipeline.py:59 @c606ea6], a ratio
      N / n of about 801. Also not 900, and a work ratio, not a measured time.
Deterministic: integer and exact rational arithmetic, no randomness.
"""

from __future__ import annotations

from fractions import Fraction

from script_glue import glue

FULL_DAYS, FULL_GPUS = 3, 8  # without subsampling [SOURCE: README.md:12 @c606ea6]
SUB_MINUTES, SUB_GPUS = 45, 1  # with subsampling [SOURCE: README.md:12 @c606ea6]
N_DOCS = 8_009_762  # [SOURCE: sublora/sublora_pipeline.py:59 @c606ea6]
N_SAMPLE = 10_000  # [SOURCE: config/sublora_bounds.yaml:36 @c606ea6]
ABSTRACT_V2 = 900  # "900 times faster", arXiv 2312.17173v2 abstract


def wall_speedup(full_days: int, sub_minutes: int) -> Fraction:
    """Ratio of wall-clock times: full_days * 24 * 60 / sub_minutes (3 days, 45 min -> 96)."""
    return Fraction(full_days * 24 * 60, sub_minutes)


def gpu_speedup(full_days: int, full_gpus: int, sub_minutes: int, sub_gpus: int) -> Fraction:
    """Ratio of GPU-minutes: (3 days x 8 GPUs) / (45 min x 1 GPU) -> 768."""
    return wall_speedup(full_days, sub_minutes) * Fraction(full_gpus, sub_gpus)


def main() -> None:
    print("Erratum E45 -- how much faster subsampling makes the bound (ch14_speedup.py)")

    wall = wall_speedup(FULL_DAYS, SUB_MINUTES)
    gpu = gpu_speedup(FULL_DAYS, FULL_GPUS, SUB_MINUTES, SUB_GPUS)
    full_minutes = FULL_DAYS * 24 * 60
    print(f"[1] README timings: {glue('full_days', FULL_DAYS)} days on "
          f"{glue('full_gpus', FULL_GPUS)} GPUs without subsampling, "
          f"{glue('sub_minutes', SUB_MINUTES)} minutes on {SUB_GPUS} GPU with it")  # fmt: skip
    print(f"    wall time: {FULL_DAYS} x 24 x 60 = {full_minutes:,} minutes; "
          f"{full_minutes:,} / {SUB_MINUTES} = "
          f"{glue('wall_speedup', wall)} times faster")  # fmt: skip
    print(f"    GPU time: {full_minutes:,} x {FULL_GPUS} = {full_minutes * FULL_GPUS:,} "
          f"GPU-minutes against {SUB_MINUTES * SUB_GPUS}; "
          f"{glue('gpu_speedup', gpu)} times less")  # fmt: skip
    over_wall, over_gpu = float(ABSTRACT_V2 / wall), float(ABSTRACT_V2 / gpu)
    print(f"    the v2 abstract's {glue('abstract_v2_factor', ABSTRACT_V2)} is neither: "
          f"{ABSTRACT_V2} / {wall} = {glue('abstract_over_wall', over_wall, '.4g')}, "
          f"{ABSTRACT_V2} / {gpu} = {glue('abstract_over_gpu', over_gpu, '.4g')}")
    assert wall == 96 and gpu == 768
    assert ABSTRACT_V2 not in (wall, gpu)

    docs_ratio = Fraction(N_DOCS, N_SAMPLE)
    print(f"[2] Documents scored: n = {N_SAMPLE:,} of N = {N_DOCS:,}; "
          f"N / n = {glue('docs_ratio', float(docs_ratio), '.1f')}")  # fmt: skip
    print("    a ratio of work, not a measured time, and not 900 either")
    assert round(float(docs_ratio), 1) == 801.0
    assert round(docs_ratio) != ABSTRACT_V2

    print("All assertions passed.")


if __name__ == "__main__":
    main()
