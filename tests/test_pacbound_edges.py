"""pacbound at the edges a mutation run (`make mutate`) found untested: bad
arguments that must be refused, the remainder block's scale, the count bits, the lazy names."""

from __future__ import annotations

import numpy as np
import pacbound
import pytest
from pacbound import message as pb_message
from pacbound import smoothing as pb_smoothing
from pacbound import subsampling as pb_subsampling


def test_an_empty_grid_is_refused() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        pb_subsampling.union_over_grid(train_errors=[], loss_ranges=[], complexity_nats=1.0,
                                       n_population=100, n_sample=10)


@pytest.mark.parametrize("p", [1.5, -0.1])
def test_probabilities_outside_the_unit_interval_are_refused(p: float) -> None:
    with pytest.raises(ValueError, match="must lie in"):
        pb_smoothing.smoothed_nll_bits(np.array([0.5, p]), 0.1, 10)
    with pytest.raises(ValueError, match="must lie in"):
        pb_smoothing.smoothed_nll_bits(p, 0.1, 10)


def test_each_count_takes_ceil_log2_d_bits() -> None:
    # d = 5 codes: a count in [0, 5] needs ceil(log2 5) = 3 bits, for each of 2 levels
    assert pb_message.message_parts([0, 1, 1, 0, 1], 2).counts == 3 * 2


def test_a_subspace_larger_than_the_space_is_refused() -> None:
    with pytest.raises(ValueError, match="exceeds"):
        pacbound.make_projector("dense", 10, 11, seed=0)


def test_the_remainder_block_has_variance_one_over_its_rows() -> None:
    """D = 1,000 is no square: the remainder block E (39 rows) is N(0, 1/39), not N(0, 1/D)
    (sublora/nn/projectors.py:383-390 @c606ea6, as the kron_projector docstring cites)."""
    from pacbound.projectors import kron_projector

    p = kron_projector(1_000, 50, seed=0)
    assert p.E.shape[0] == 1_000 - 31 * 31
    assert 0.1 < float(p.E.std()) < 0.25  # 1/sqrt(39) = 0.16; 1/sqrt(1000) would be 0.032


def test_rank_zero_lora_is_refused() -> None:
    import torch

    with pytest.raises(ValueError, match="rank"):
        pacbound.LoRALinear(torch.nn.Linear(4, 3), r=0)


def test_a_projector_of_another_shape_is_refused() -> None:
    import torch

    model = torch.nn.Linear(4, 3)  # D = 15
    with pytest.raises(ValueError, match="projector shape"):
        pacbound.SubspaceModel(model, d=2, projector=pacbound.make_projector("dense", 14, 2, 0))


def test_lazy_names_come_from_their_modules_and_unknown_names_fail() -> None:
    from pacbound import projectors

    assert pacbound.kron_shapes is projectors.kron_shapes
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = pacbound.no_such_name


@pytest.mark.parametrize("name", ["gpt2", "params"])
def test_the_counting_modules_examples_hold_without_torch(name: str) -> None:
    """The parameter counts' docstring examples (GPT-2 small: 123,689,472; its LoRA factors:
    351,744), run here without test_pacbound.py's torch models, so that a mutant of a count is
    caught in a second."""
    import doctest
    import importlib

    module = importlib.import_module(f"pacbound.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_unknown_parameter_names_are_refused_by_name() -> None:
    import torch

    with pytest.raises(KeyError, match=r"not parameters of the model: \['nope'\]"):
        pacbound.SubspaceModel(torch.nn.Linear(4, 3), ["nope"], d=2, kind="dense")
