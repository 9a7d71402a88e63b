"""Mutants of the claim check: the number lexer (`numbers`), the outputs reader (`outputs`), the
page model (`page`), the report (`model`), the check of a page (`check`), the command line and
API (`cli`, `api`) (tests/mutate.py runs these)."""

# ruff: noqa: E501  (a snippet is an exact line of code: kept whole, it stays greppable)

from __future__ import annotations

from mutate import Mutant


def mutant(name: str, module: str, old: str, new: str, *tests: str) -> Mutant:
    return Mutant(name, f"explainer_tools/claims/{module}", old, new, tests)


T_CLAIMS = "tests/test_claims.py"
T_RULES = "tests/test_claims_rules.py"
T_NEW = "tests/test_claims_mutants.py"
T_DIGITS = "tests/test_claims_mutation.py::test_every_checked_number_is_caught_when_one_digit_changes"

MUTANTS = [
    # numbers: the lexer
    mutant("claims: lower-case 'part' a reference again", "numbers.py",
           "(?-i:Chapter|Figure|Equation|Step|Table|Tab\\.|Part)",
           "(?:Chapter|Figure|Equation|Step|Table|Tab\\.|Part)",
           T_RULES),
    mutant("claims: block markers checked as numbers", "numbers.py",
           "    if mode != \"math\" and before == \"[\" and after == \"]\":", "    if False:",
           T_CLAIMS, T_NEW),
    mutant("claims: years checked as numbers", "numbers.py",
           "        if _is_year(digits, context, offset + start, offset + end):",
           "        if False:", T_CLAIMS, T_NEW),
    mutant("claims: digits after a letter checked", "numbers.py",
           "    if letter_before:\n        return skipped(", "    if False:\n        return skipped(",
           T_CLAIMS, T_NEW),
    mutant("claims: a four-digit first thousands group", "numbers.py",
           "    if not re.fullmatch(r\"[0-9]{1,3}\", groups[0]):",
           "    if not re.fullmatch(r\"[0-9]{1,4}\", groups[0]):", T_CLAIMS, T_NEW),
    mutant("claims: the exponent of a number ignored", "numbers.py",
           "    if exponent:\n", "    if False:\n", T_CLAIMS, T_NEW),
    mutant("claims: a minus sign dropped", "numbers.py",
           "                return text[start - 1]\n", "                return \"\"\n", T_CLAIMS, T_NEW),
    # outputs: what a script printed
    # (equivalent, so not listed: dropping the blanking of "[N] " before `values` scans a block,
    # since the lexer skips a bracketed integer as a block marker in block mode anyway)
    mutant("claims: a broken output read as one without blocks", "outputs.py",
           "                self._blocks[script] = {}  # reported once, by check_site\n"
           "                raise\n", "                self._blocks[script] = {}  # reported once, "
           "by check_site\n", T_CLAIMS, T_NEW),
    mutant("claims: an unknown script has blocks", "outputs.py",
           "        if script not in self._texts:\n            return None",
           "        if script not in self._texts:\n            return {}", T_CLAIMS, T_NEW),
    mutant("claims: an output line one off", "outputs.py",
           "        return block.first_line + index, block.lines[index]",
           "        return block.first_line + index + 1, block.lines[index]", T_CLAIMS, T_NEW),
    # page: prose elements, cells, waivers, sentences
    mutant("claims: a waiver without a reason accepted", "page.py",
           "        if not reason:\n", "        if False:\n", T_CLAIMS, T_NEW),
    mutant("claims: an escaped pipe splits a cell", "page.py",
           ".replace(\"\\\\|\", \"  \")", "", T_CLAIMS, T_NEW),
    mutant("claims: abbreviations end sentences", "page.py",
           "        if word and (word.group(1).lower().rstrip(\".\") in ABBREVIATIONS\n"
           "                     or re.fullmatch(r\"[A-Z]\", word.group(1))):",
           "        if False:", T_CLAIMS, T_NEW),
    mutant("claims: an unclosed fence accepted", "page.py",
           "    if scanned.unclosed_fence:", "    if False:", T_CLAIMS, T_NEW),
    mutant("claims: no section is fully cited", "page.py",
           "            if not strict_level and STRICT_SECTION.search(title):",
           "            if False:", T_CLAIMS),
    # model: the report
    mutant("claims: a two-block citation described as one", "model.py",
           "        if len(self.blocks) == 1:", "        if len(self.blocks) <= 2:", T_NEW),
    mutant("claims: the error's line left out", "model.py",
           "        return f\"{self.page}:{self.line}: {self.message}\"",
           "        return f\"{self.page}: {self.message}\"", T_CLAIMS, T_NEW),
    # check: a page against its cited blocks
    # (named alone: the whole-book digit test must catch it by itself)
    mutant("claims: a number its block does not print passes", "check.py",
           "        report.errors.append(ClaimError(page, line, message, token.text))",
           "        pass", T_DIGITS),
    mutant("claims: a list inherits a citation without a colon", "check.py",
           "            ends_with_colon = element.kind == \"row\" or previous.text.rstrip().endswith(\":\")",
           "            ends_with_colon = True", T_CLAIMS),
    mutant("claims: a near miss not named", "check.py",
           "            message += f\" (near miss: {kind})\" if kind else \"\"", "            pass", T_CLAIMS),
    mutant("claims: an uncited number some output prints is an error", "check.py",
           "        if occurrence.offset in report.uncited_errors or occurrence.value in printed or (",
           "        if occurrence.offset in report.uncited_errors or (", T_CLAIMS),
    # cli and api
    mutant("claims: errors exit 0", "cli.py",
           "    return 1 if site.errors else 0", "    return 0", T_CLAIMS),
    mutant("claims: quiet lists uncited numbers", "cli.py",
           "        if report.uncited and not quiet:", "        if report.uncited:", T_CLAIMS),
    mutant("claims: the verified API keeps numbers in error", "api.py",
           "            if not occurrence.script or (occurrence.line, occurrence.text) in error_offsets:",
           "            if not occurrence.script:", T_CLAIMS),
    mutant("claims: the verified API's column one off", "api.py",
           "            column = occurrence.offset - text.rfind(\"\\n\", 0, occurrence.offset)",
           "            column = occurrence.offset - text.rfind(\"\\n\", 0, occurrence.offset) - 1",
           T_CLAIMS),
]
