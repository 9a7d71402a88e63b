"""The rules that read a change's direction and a comparison in prose: "falls
from 2.824 to 2.445" must go down, "0.9433, below the nominal 0.95" must be below. And the symbol
rule's second form: `X = v` where the block prints v unnamed and prints `X = w`, w standing in the
same sentence. Each test builds a small page and its output in memory and asserts the rule's own
message."""

from __future__ import annotations

from explainer_tools.claims import Outputs, check_page
from explainer_tools.claims.direction import _direction

OUTPUT = """\
Probe (probe.py)
[1] population loss: unquantized 2.824, quantization-aware 2.445
    message: uniform 2,948 bits, quantization-aware 3,756 bits
[2] interval (nominal 0.95) covered the truth in 0.9433 of the runs
    bound 3.9376 < random guess 5.000; values 1.5 and 1
[3] standard deviation of the mean, p = 0.3
    N = 1,000: independent sqrt(p(1-p)/N) = 0.01449
    N = 4,000: 0.00725
"""


def messages(markdown: str) -> list[tuple[str, str]]:
    page = "---\nscripts: [probe.py]\n---\n" + markdown
    report = check_page(page, "docs/chapters/x.md", Outputs({"probe.py": OUTPUT}))
    return [(e.number, e.message) for e in report.errors]


def test_a_verb_of_change_gives_its_direction() -> None:
    assert _direction("Training lowered the population loss ") == ("down", "lowered")
    assert _direction("The message grows ") == ("up", "grows")
    assert _direction("only the bits per parameter fall, ") == ("down", "fall")
    assert _direction("the loss falls as the message grows ") == ("up", "grows")  # nearest
    assert _direction("the loss falls when N goes ") == ("", "")  # another clause
    assert _direction("the loss does not fall ") == ("", "")
    assert _direction("the weights range ") == ("", "")
    assert _direction("the loss falls by 3 bits, ") == ("down", "falls")  # its amount
    assert _direction("it shrinks by thirty orders of magnitude, ") == ("down", "shrinks")
    assert _direction(r"so \(T_1\) grows by \(\sqrt{1/\ln 2}\), ") == ("up", "grows")
    assert _direction("the loss falls to 3 bits ") == ("", "")  # a number between


def test_a_change_goes_the_way_its_verb_says() -> None:
    good = ("Training lowered the loss from 2.824 to 2.445 and the message grows from 2,948 to "
            "3,756 bits (output [1]).\n")
    assert messages(good) == []
    bad = good.replace("2.824 to 2.445", "2.445 to 2.824")
    assert [n for n, m in messages(bad) if "goes the other way" in m] == ["2.824"]
    bad = good.replace("2,948 to 3,756", "3,756 to 2,948")
    found = [(n, m) for n, m in messages(bad) if "goes the other way" in m]
    assert found == [("2,948", "'grows from 3,756 to 2,948' goes the other way: 2,948 is below "
                               "3,756 (swapped numbers?)")]


def test_a_change_after_a_colon_or_sharing_the_verb_before_it_is_read() -> None:
    assert _direction("It only shrinks the loss: ") == ("down", "shrinks")
    good = ("Training lowered the loss from 2.824 to 2.445 bits and the message from 3,756 to "
            "2,948 (output [1]).\n")
    assert messages(good) == []
    bad = good.replace("3,756 to 2,948", "2,948 to 3,756")
    assert [(n, m) for n, m in messages(bad) if "other way" in m] == [
        ("3,756", "'lowered from 2,948 to 3,756' goes the other way: 3,756 is above 2,948 "
                  "(swapped numbers?)")]
    # another clause after the first change: its verb is not shared
    assert not any("other way" in m for _n, m in messages(good.replace(
        "bits and the message", "bits; the message").replace("3,756 to 2,948", "2,948 to 3,756")))


def test_a_change_without_a_verb_of_direction_is_not_read() -> None:
    assert not any("other way" in m for _n, m in messages(
        "The message ranges from 3,756 to 2,948 bits (output [1]).\n"))
    assert not any("other way" in m for _n, m in messages(
        "The loss falls while the message goes from 3,756 to 2,948 bits (output [1]).\n"))


def test_two_numbers_compared_compare_that_way() -> None:
    good = ("The share is 0.9433, below the goal 0.95; the bound, 3.9376, is below a "
            "random guess, 5.000, and 1.5 exceeds 1 (output [2]).\n")
    assert messages(good) == []
    bad = good.replace("0.9433, below the goal 0.95", "0.95, below the goal 0.9433")
    assert [(n, m) for n, m in messages(bad) if "stands" in m] == [
        ("0.9433", "0.95 stands 'below' 0.9433, but it is above it (swapped numbers?)")]
    bad = good.replace("3.9376, is below a random guess, 5.000", "5.000, is below a random "
                       "guess, 3.9376")
    assert [n for n, m in messages(bad) if "stands 'below'" in m] == ["3.9376"]
    bad = good.replace("1.5 exceeds 1", "1 exceeds 1.5")
    assert [n for n, m in messages(bad) if "stands 'exceeds'" in m] == ["1.5"]


def test_a_comparison_may_follow_a_unit_and_say_under() -> None:
    good = "The share is 0.9433 bits per token, under 0.95 (output [2]).\n"
    assert messages(good) == []
    bad = "The share is 0.95 bits per token, under 0.9433 (output [2]).\n"
    assert [n for n, m in messages(bad) if "stands 'under'" in m] == ["0.9433"]


def test_a_comparison_needs_the_numbers_joined_by_it_alone() -> None:
    # a noun after the first number: "documents above 100 tokens" compares no two numbers
    assert not any("stands" in m for _n, m in messages(
        "It is 5.000 runs below the mark of 3.9376 (output [2]).\n"))
    assert not any("stands" in m for _n, m in messages(
        "It is 1.5, more than twice 5.000 (output [2]).\n"))  # a multiple, not a rival
    assert any("stands 'more than'" in m for _n, m in messages(
        "It is 1.5, more than 5.000 (output [2]).\n"))


def test_a_symbol_takes_a_number_printed_unnamed_only_with_its_partner_in_the_sentence() -> None:
    good = r"At \(N\) = 1,000 the standard deviation of the mean is 0.01449 (output [3])." + "\n"
    assert messages(good) == []
    bad = r"At \(N=0.01449\) the standard deviation of the mean is 1,000 (output [3])." + "\n"
    assert any(n == "0.01449" and "N = 1,000" in m for n, m in messages(bad))
    # 0.01449 is printed unnamed, but N's own value is not in the sentence: no swap to see
    assert not any("with no symbol" in m for _n, m in messages(
        r"At \(N=0.01449\) the mean is 0.3 (output [3])." + "\n"))
    # the partner is itself written N = w: two settings, not a swap
    assert not any("with no symbol" in m for _n, m in messages(
        r"At \(N=0.01449\) and \(N=1{,}000\) it is small (output [3])." + "\n"))


def test_a_setting_named_in_inline_code_is_a_symbol() -> None:
    from explainer_tools.claims.swaps import _symbol_before
    assert _symbol_before("with `lora_alpha` ") == "lora_alpha"
    assert _symbol_before("`block_size` = ") == "block_size"
    assert _symbol_before("the `lora_alpha` of ") == ""
    outputs = Outputs({"probe.py": "P (probe.py)\n[1] LoRA (r = 4, lora_alpha = 32, "
                                   "lora_dropout = 0.1)\n"})
    good = "It uses `lora_alpha` 32 and `lora_dropout` 0.1 (output [1]).\n"
    page = "---\nscripts: [probe.py]\n---\n"
    assert check_page(page + good, "docs/chapters/x.md", outputs).errors == []
    bad = "It uses `lora_alpha` 0.1 and `lora_dropout` 32 (output [1]).\n"
    found = check_page(page + bad, "docs/chapters/x.md", outputs).errors
    assert [e.number for e in found if "lora_alpha = 0.1" in e.message] == ["0.1"]


def test_a_part_is_no_more_than_its_whole() -> None:
    from explainer_tools.claims.direction import _count
    assert [_count(t) for t in ("3,773", "50{,}000", "4", "0.95", "-3", "1e5")] == [
        True, True, True, False, False, False]
    outputs = Outputs({"probe.py": "P (probe.py)\n[1] covered in 3,773 of 4,000 runs\n"
                                   "    one draw in 8, 1 case\n"})
    page = "---\nscripts: [probe.py]\n---\n"
    good = "It held in 3,773 of the 4,000 runs, and in 1 out of 8 (output [1]).\n"
    assert check_page(page + good, "docs/chapters/x.md", outputs).errors == []
    bad = good.replace("1 out of 8", "8 out of 1")
    found = check_page(page + bad, "docs/chapters/x.md", outputs).errors
    assert [(e.number, e.message) for e in found if "part of a whole" in e.message] == [
        ("1", "'8 of 1' counts a part of a whole, but 8 is more than 1 (swapped numbers?)")]
    # not counts, or not joined by "of" alone: nothing to say
    for text in ("It held in 8 of 1.5 runs (output [1]).\n",
                 "It held in 8 runs of 1 case (output [1]).\n"):
        assert not any("part of a whole" in e.message
                       for e in check_page(page + text, "docs/chapters/x.md", outputs).errors)


def test_a_correction_joins_as_the_block_s_correction_does() -> None:
    from explainer_tools.claims.context import joiner
    assert joiner(" instead of ") == joiner(", not ") == joiner(" rather than ") == "instead of"
    outputs = Outputs({"probe.py": "P (probe.py)\n[1] it holds with probability 0.949960, not "
                                   "0.95\n"})
    page = "---\nscripts: [probe.py]\n---\n"
    good = "It holds with probability 0.949960 instead of 0.95 (output [1]).\n"
    assert check_page(page + good, "docs/chapters/x.md", outputs).errors == []
    bad = "It holds with probability 0.95 instead of 0.949960 (output [1]).\n"
    found = check_page(page + bad, "docs/chapters/x.md", outputs).errors
    assert [e.number for e in found if "joined by 'instead of'" in e.message] == ["0.949960"]


def test_a_symbol_in_math_takes_the_value_after_it_in_prose() -> None:
    from explainer_tools.claims.swaps import _symbol_before
    assert _symbol_before(r"At \(N\) = ") == "n"
    assert _symbol_before(r"with \(\epsilon\) = ") == "eps"
    good = r"At \(N\) = 1,000 the standard deviation of the mean is 0.01449 (output [3])." + "\n"
    assert messages(good) == []
    bad = r"At \(N\) = 0.01449 the standard deviation of the mean is 1,000 (output [3])." + "\n"
    assert any(n == "0.01449" and "N = 1,000" in m for n, m in messages(bad))


def test_an_operand_is_not_the_value_of_the_symbol_before_it() -> None:
    outputs = Outputs({"probe.py": "P (probe.py)\n[1] L = 115,474 + 176 = 115,650 bits, "
                                   "K = 115,700\n"})
    page = "---\nscripts: [probe.py]\n---\n"
    good = (r"The message is \(L\) = 115,650 bits, of which 115,474 code symbols "
            "(output [1]).\n")
    assert check_page(page + good, "docs/chapters/x.md", outputs).errors == []
