"""Mutants of explainer_tools' text tools: blocks, the Markdown scanner and markers, tags and
badges, raw TeX, HTML prose, YAML inputs, CPU paths, "last verified", the book checks, the
scaffold, the notebooks, the bench, errata and the ledger (tests/mutate.py runs them)."""

# ruff: noqa: E501  (a snippet is an exact line of code: kept whole, it stays greppable)

from __future__ import annotations

from mutate import Mutant


def mutant(name: str, path: str, old: str, new: str, *tests: str) -> Mutant:
    return Mutant(name, path, old, new, tests)


T_BLOCKS = "tests/test_blocks.py"
T_MARKERS = "tests/test_markers.py"
T_PROV = "tests/test_provenance.py"
T_READER = "tests/test_reader_features.py"
T_DOC = "tests/test_doctests.py::test_docstring_examples"
T_ERRATA = ("tests/test_errata.py", "-k", "not mkdocs_build")  # the site builds: 10 s
T_NEW = "tests/test_tools_mutants.py"
T_BOOK = ("tests/test_book.py", "-k", "not repository")  # the whole book: 25 s
T_NBPIPE = ("tests/test_notebook_pipeline.py", "-k", "comparable_text or inline_png or stream")

MUTANTS = [
    # blocks
    mutant("blocks: trailing empty lines kept", "explainer_tools/blocks.py",
           "            while current and not current[-1].strip():",
           "            while False:", T_BLOCKS),
    mutant("blocks: duplicate numbers accepted", "explainer_tools/blocks.py",
           "            if number in blocks:", "            if False:", T_BLOCKS),
    mutant("blocks: an indented line ends the block", "explainer_tools/blocks.py",
           "elif current is not None and (not line or line[0].isspace()):",
           "elif current is not None and not line:", T_BLOCKS),
    mutant("blocks: a missing output file read as empty", "explainer_tools/blocks.py",
           "    if not path.is_file():\n        return None", "    if not path.is_file():\n"
           "        return {}", T_NEW),
    # tags
    # (a bare PAPER already matches the tag pattern, to be refused by the badge code: widening
    # its location to `\s*...*` changed nothing a test could see, so it is not listed)
    mutant("tags: a link or reference label read as a tag", "explainer_tools/tags.py",
           "    r\"(?![(\\[:])\"\n)", "    r\"\"\n)", T_PROV),
    mutant("tags: an unknown kind gets the first badge", "explainer_tools/tags.py",
           "    raise ValueError(f\"not a provenance tag: {tag_text!r}\")", "    return \"PAPER\"",
           T_NEW),
    mutant("tags: strip_tags keeps the space", "explainer_tools/tags.py",
           "TAG_PATTERN.pattern + \" ?\"", "TAG_PATTERN.pattern", f"{T_DOC}[explainer_tools.tags]"),
    # yaml_input
    mutant("yaml_input: error without its line", "explainer_tools/yaml_input.py",
           "        line = f\":{mark.line + 1}\" if mark is not None else \"\"",
           "        line = \"\"", f"{T_READER}::test_probe_C10_glossary_errors_name_file_and_line",
           f"{T_READER}::test_probe_C7_ledger_errors_name_file_and_line"),
    mutant("yaml_input: item lines 0-based", "explainer_tools/yaml_input.py",
           "    lines = [item.start_mark.line + 1 for", "    lines = [item.start_mark.line for",
           f"{T_DOC}[explainer_tools.yaml_input]"),
    # raw_tex
    mutant("raw_tex: one-letter commands count", "explainer_tools/raw_tex.py",
           "TEX_COMMAND = re.compile(r\"\\\\(?:[A-Za-z]{2,}|", "TEX_COMMAND = re.compile("
           "r\"\\\\(?:[A-Za-z]{1,}|", "tests/test_book.py::test_plain_text_has_no_raw_tex", T_NEW),
    mutant("raw_tex: delimiters not found", "explainer_tools/raw_tex.py",
           "TEX_COMMAND = re.compile(r\"\\\\(?:[A-Za-z]{2,}|[\\[\\]()])\")",
           "TEX_COMMAND = re.compile(r\"\\\\(?:[A-Za-z]{2,})\")",
           "tests/test_book.py::test_raw_tex_is_found",
           "tests/test_book.py::test_browser_rule_is_the_python_rule"),
    # html_text
    mutant("html_text: code rewritten", "explainer_tools/html_text.py",
           "    {\"a\", \"abbr\", \"button\", \"code\",", "    {\"a\", \"abbr\", \"button\",",
           f"{T_READER}::test_map_prose_leaves_code_math_links_headings_and_badges_alone"),
    mutant("html_text: skip classes ignored", "explainer_tools/html_text.py",
           "    return name.lower() in SKIP_ELEMENTS or bool(_classes(attrs) & set(skip_classes))",
           "    return name.lower() in SKIP_ELEMENTS",
           f"{T_READER}::test_map_prose_leaves_code_math_links_headings_and_badges_alone"),
    mutant("html_text: a closing tag does not end the skip", "explainer_tools/html_text.py",
           "                del stack[depth:]\n                break\n",
           "                break\n",
           f"{T_READER}::test_map_prose_leaves_code_math_links_headings_and_badges_alone",
           f"{T_READER}::test_map_prose_keeps_comments_and_nested_skips"),
    mutant("html_text: void elements pushed", "explainer_tools/html_text.py",
           "    if name in VOID_ELEMENTS or attrs.rstrip().endswith(\"/\"):",
           "    if attrs.rstrip().endswith(\"/\"):", T_READER, T_NEW),
    # cpu_paths
    mutant("cpu_paths: AVX2 not required", "explainer_tools/cpu_paths.py",
           "    if flags is not None and \"avx2\" not in flags:", "    if False:",
           "tests/test_notebook_companion.py::test_which_cpus_take_the_pinned_paths"),
    mutant("cpu_paths: ARM taken for x86", "explainer_tools/cpu_paths.py",
           "    if machine.lower() not in X86_64:", "    if False:",
           "tests/test_notebook_companion.py::test_which_cpus_take_the_pinned_paths"),
    mutant("cpu_paths: no flags line read", "explainer_tools/cpu_paths.py",
           "        if line.startswith(\"flags\"):", "        if line.startswith(\"Flags\"):",
           "tests/test_notebook_companion.py::test_cpu_flags_are_read_from_cpuinfo"),
    # verified
    mutant("verified: never dirty", "explainer_tools/verified.py",
           "    dirty = _git(root, \"diff\", \"--quiet\", \"HEAD\", \"--\", *stamps).returncode == 1",
           "    dirty = False",
           f"{T_READER}::test_last_verified_is_the_last_commit_that_changed_the_stamps"),
    mutant("verified: the script's hash not read", "explainer_tools/verified.py",
           "    return StampFacts(script, inputs.get(f\"explainer_code/{script}\", \"\"),",
           "    return StampFacts(script, inputs.get(f\"{script}\", \"\"),",
           f"{T_READER}::test_last_verified_is_the_last_commit_that_changed_the_stamps"),
    mutant("verified: script names unescaped", "explainer_tools/verified.py",
           "    names = \", \".join(f\"<code>{html.escape(s)}</code>\" for s in scripts)",
           "    names = \", \".join(f\"<code>{s}</code>\" for s in scripts)", T_NEW),
    # markdown: the one scanner
    mutant("markdown: a shorter fence closes", "explainer_tools/markdown.py",
           "    return fence[0] == opening[0] and len(fence) >= len(opening) and not",
           "    return fence[0] == opening[0] and not", T_MARKERS),
    mutant("markdown: a fence with info closes", "explainer_tools/markdown.py",
           "and len(fence) >= len(opening) and not match.group(\n        \"info\"\n    ).strip()",
           "and len(fence) >= len(opening)", T_MARKERS, T_NEW),
    mutant("markdown: unclosed fence not reported", "explainer_tools/markdown.py",
           "    result.unclosed_fence = fence_line if open_fence else 0",
           "    result.unclosed_fence = 0", T_MARKERS),
    mutant("markdown: multi-line comments end at once", "explainer_tools/markdown.py",
           "            in_comment = \"-->\" not in line\n", "            in_comment = False\n",
           T_MARKERS, T_NEW),
    mutant("markdown: bad front matter YAML accepted", "explainer_tools/markdown.py",
           "        raise MarkdownError(f\"invalid YAML front matter: {front.error}\")",
           "        return {}, front.body_start", T_MARKERS, T_NEW),
    mutant("markdown: the blockquote prefix ignored", "explainer_tools/markdown.py",
           "        return match.end() if match and \">\" in match.group() else 0",
           "        return 0", T_MARKERS),
    # markers
    mutant("markers: nested markers accepted", "explainer_tools/markers.py",
           "            if open_start is not None:\n                raise MarkerError(\n"
           "                    f\"{path}:{line_no}: nested marker",
           "            if False:\n                raise MarkerError(\n"
           "                    f\"{path}:{line_no}: nested marker", T_MARKERS, T_NEW),
    mutant("markers: unclosed marker accepted", "explainer_tools/markers.py",
           "    if open_start is not None:\n        raise MarkerError(\n"
           "            f\"{path}:{open_start[0]}: unclosed marker",
           "    if False:\n        raise MarkerError(\n"
           "            f\"{path}:{open_start[0]}: unclosed marker", T_MARKERS),
    mutant("markers: a source marker takes a block", "explainer_tools/markers.py",
           "            if body.group(\"kind\") == \"source\" and body.group(\"block\"):",
           "            if False:", T_MARKERS),
    mutant("markers: the fence as long as a backtick run", "explainer_tools/markers.py",
           "    fence = \"`\" * max(3, longest + 1)", "    fence = \"`\" * max(3, longest)",
           T_MARKERS),
    mutant("markers: content not indented", "explainer_tools/markers.py",
           "    return [f\"{indent}{line}\" if line else \"\" for line in lines]",
           "    return lines", T_MARKERS),
    mutant("markers: CRLF turned into LF", "explainer_tools/markers.py",
           "    return result.replace(\"\\n\", \"\\r\\n\") if crlf else result", "    return result",
           T_MARKERS),
    mutant("markers: a source outside explainer_code read", "explainer_tools/markers.py",
           "            if not source.is_relative_to(code_dir.resolve()) or not source.is_file():",
           "            if not source.is_file():", T_NEW),
    mutant("markers: an unknown block gives the whole output", "explainer_tools/markers.py",
           "        if marker.block not in blocks:", "        if marker.block not in blocks:\n"
           "            return output, \"text\", out_name\n        if False:", T_NEW),
    # provenance: badges
    mutant("provenance: tags in inline code rendered", "explainer_tools/provenance.py",
           "    for skip in INLINE_SKIP_PATTERN.finditer(text):",
           "    for skip in INLINE_SKIP_PATTERN.finditer(\"\"):", T_PROV),
    mutant("provenance: a bare PAPER in prose accepted", "explainer_tools/provenance.py",
           "        if tag_text == \"PAPER\":\n            raise ProvenanceError(\n"
           "                f\"{page}:{line_no}: [PAPER] needs",
           "        if False:\n            raise ProvenanceError(\n"
           "                f\"{page}:{line_no}: [PAPER] needs", T_PROV),
    mutant("provenance: badge text unescaped", "explainer_tools/provenance.py",
           "{KIND_CLASSES[kind]}\">{html.escape(tag_text)}</span>'",
           "{KIND_CLASSES[kind]}\">{tag_text}</span>'", T_PROV),
    mutant("provenance: a section tag inside a sentence accepted", "explainer_tools/provenance.py",
           "        if match.group(\"scope\"):", "        if False:", T_PROV),
    mutant("provenance: notebook HTML text not escaped back", "explainer_tools/provenance.py",
           "    out.append(html.escape(text[last:], quote=False))", "    out.append(text[last:])",
           T_PROV, T_NEW),
    mutant("provenance: only prose lines skipped by kind", "explainer_tools/provenance.py",
           "        if entry.kind != \"prose\":", "        if entry.kind in (\"blank\", \"front\"):",
           T_PROV),
    # errata: the checks
    mutant("errata: id need not match the file", "explainer_tools/errata.py",
           "    if ident and str(ident).lower() + \".md\" != erratum.path.name:",
           "    if False:", *T_ERRATA),
    mutant("errata: any status accepted", "explainer_tools/errata.py",
           "    if status and status not in STATUSES:", "    if False:", *T_ERRATA),
    mutant("errata: paper_says without a PAPER tag", "explainer_tools/errata.py",
           "        elif field == \"paper_says\" and \"PAPER\" not in kinds:", "        elif False:",
           *T_ERRATA),
    mutant("errata: prose fields without tags", "explainer_tools/errata.py",
           "        if not kinds:\n            problems.append(", "        if False:\n"
           "            problems.append(", *T_ERRATA),
    mutant("errata: a cited block need not exist", "explainer_tools/errata.py",
           "            elif block not in blocks:", "            elif False:", *T_ERRATA),
    mutant("errata: a boolean block accepted", "explainer_tools/errata.py",
           "            if not isinstance(block, int) or isinstance(block, bool):",
           "            if not isinstance(block, int):", *T_ERRATA, T_NEW),
    mutant("errata: a malformed commit accepted", "explainer_tools/errata.py",
           "            if item.get(\"commit\") and not COMMIT.match(str(item[\"commit\"])):",
           "            if False:", *T_ERRATA),
    mutant("errata: unpinned packages accepted", "explainer_tools/errata.py",
           "            if f\"{_normalise(name)}=={version.strip()}\" not in pins:",
           "            if False:", *T_ERRATA),
    mutant("errata: a link above docs/ resolves inside", "explainer_tools/errata.py",
           "                return \"../\" + target  # outside docs/: never a page",
           "                continue", *T_ERRATA, T_NEW),
    mutant("errata: chapters need not link back", "explainer_tools/errata.py",
           "        elif page not in {resolve(str(chapter), t) for t in link_targets(_read(path))}:",
           "        elif False:", *T_ERRATA),
    mutant("errata: unlisted backlinks accepted", "explainer_tools/errata.py",
           "            if erratum and chapter not in (erratum.meta.get(\"chapters\") or []):",
           "            if False:", *T_ERRATA),
    mutant("errata: two index markers accepted", "explainer_tools/errata.py",
           "    if count != 1:", "    if count < 1:", *T_ERRATA, T_NEW),
    mutant("errata: a duplicate id accepted", "explainer_tools/errata.py",
           "        if ident in ids:", "        if False:", *T_ERRATA, T_NEW),
    mutant("errata: front matter that is not a mapping accepted", "explainer_tools/errata.py",
           "    if not isinstance(front.data, dict):\n        raise ErratumError(",
           "    if False:\n        raise ErratumError(", *T_ERRATA, T_NEW),
    # errata_pages: rendering, source lines
    mutant("errata: rendered line reported", "explainer_tools/errata_pages.py",
           "        first, last = self.origins[line - 1] if",
           "        return line\n        first, last = self.origins[line - 1] if",
           "tests/test_errata.py::test_probe_C9_an_error_in_an_erratum_names_its_line_in_the_file"),
    mutant("errata_pages: spans one line early", "explainer_tools/errata_pages.py",
           "        return node.start_mark.line + 2, max(end, node.start_mark.line + 2)",
           "        return node.start_mark.line + 1, max(end, node.start_mark.line + 1)",
           "tests/test_errata.py::test_rendered_lines_point_at_their_source",
           "tests/test_errata.py::test_probe_C9_an_error_in_an_erratum_names_its_line_in_the_file", T_NEW),
    mutant("errata_pages: the token not searched", "explainer_tools/errata_pages.py",
           "            if token and token in lines[number - 1]:", "            if False:",
           "tests/test_errata.py::test_probe_C9_an_error_in_an_erratum_names_its_line_in_the_file",
           "tests/test_errata.py::test_rendered_lines_point_at_their_source"),
    mutant("errata_pages: pipes in a cell unescaped", "explainer_tools/errata_pages.py",
           "    return str(text).replace(\"|\", \"\\\\|\").replace(\"\\n\", \" \")",
           "    return str(text).replace(\"\\n\", \" \")", *T_ERRATA, T_NEW),
    mutant("errata_pages: code errata in the paper table", "explainer_tools/errata_pages.py",
           "    if not code:\n        return _index_table(paper, docs_dir, \"Paper locations\")",
           "    if True:\n        return _index_table(errata, docs_dir, \"Paper locations\")",
           *T_ERRATA),
    mutant("errata_pages: chapter title ignores front matter", "explainer_tools/errata_pages.py",
           "        if meta.get(\"title\"):\n            return str(meta[\"title\"])",
           "        if False:\n            return str(meta[\"title\"])", *T_ERRATA, T_NEW),
    # ledger
    mutant("ledger: entry without id accepted", "explainer_tools/ledger.py",
           "        if not entry.get(\"id\"):", "        if False:", T_READER),
    mutant("ledger: an expected value need not be printed", "explainer_tools/ledger.py",
           "            if str(expected) not in blocks[block].text:", "            if False:",
           f"{T_READER}::test_a_changed_output_flags_its_ledger_claims"),
    mutant("ledger: a non-reproduced claim without a note", "explainer_tools/ledger.py",
           "    if status != \"reproduced\" and not entry.get(\"note\"):", "    if False:",
           f"{T_READER}::test_ledger_entry_rules"),
    mutant("ledger: evidence need not list what it expects", "explainer_tools/ledger.py",
           "        if not item.get(\"expects\"):", "        if False:",
           f"{T_READER}::test_ledger_entry_rules", T_NEW),
    mutant("ledger: duplicate ids accepted", "explainer_tools/ledger.py",
           "        if entry.get(\"id\") in seen:", "        if False:", T_READER, T_NEW),
    mutant("ledger: pipes in a cell unescaped", "explainer_tools/ledger.py",
           "    return \" \".join(str(text).split()).replace(\"|\", \"\\\\|\")",
           "    return \" \".join(str(text).split())", T_READER, T_NEW),
    # bibliography
    mutant("bibliography: unclosed entry accepted", "explainer_tools/bibliography.py",
           "                if not re.match(r\"\\s*\\}\", text[pos:]):",
           "                if False:", T_READER),
    mutant("bibliography: duplicate keys accepted", "explainer_tools/bibliography.py",
           "        if key in entries:", "        if False:", T_READER),
    mutant("bibliography: missing fields accepted", "explainer_tools/bibliography.py",
           "        if missing:\n", "        if False:\n", T_READER),
    mutant("bibliography: two authors as et al.", "explainer_tools/bibliography.py",
           "    elif len(names) == 2:", "    elif len(names) == 0:", T_READER),
    mutant("bibliography: surname from the first name", "explainer_tools/bibliography.py",
           "else author.split()[-1])", "else author.split()[0])", T_READER, T_NEW),
    mutant("bibliography: an unknown key cited silently", "explainer_tools/bibliography.py",
           "        if entry is None:\n", "        if False:\n", T_READER),
    mutant("bibliography: LaTeX commands kept", "explainer_tools/bibliography.py",
           "    text = re.sub(r\"\\\\[a-zA-Z]+\\s*\", \"\", text)", "    text = text", T_READER, T_NEW),
    # book: the plan, the nav, the home list, the table of contents
    mutant("book: a nav chapter in another part accepted", "explainer_tools/book.py",
           "        if part != known[number].part:", "        if False:", *T_BOOK),
    mutant("book: an unplanned nav chapter accepted", "explainer_tools/book.py",
           "        if number not in known:\n", "        if False:\n", *T_BOOK),
    mutant("book: planned chapters linked as written", "explainer_tools/book.py",
           "            if chapter.written:\n                lines.append(f\"- {chapter.number}",
           "            if True:\n                lines.append(f\"- {chapter.number}", *T_BOOK),
    mutant("book: a chapter planned twice accepted", "explainer_tools/book.py",
           "            if any(p.number == number for p in plan):", "            if False:",
           *T_BOOK, T_NEW),
    # book_checks: budget, repeats, structure
    mutant("book_checks: the badge budget off by one", "explainer_tools/book_checks.py",
           "    if count.badges > count.allowance:", "    if count.badges > count.allowance + 1:",
           *T_BOOK),
    mutant("book_checks: repeated badges across headings", "explainer_tools/book_checks.py",
           "        if tag.text == before.text and not between:",
           "        if tag.text == before.text:", *T_BOOK),
    mutant("book_checks: tags counted as words", "explainer_tools/book_checks.py",
           "    text = INLINE_HTML.sub(\" \", TAG_PATTERN.sub(\" \", line))",
           "    text = INLINE_HTML.sub(\" \", line)", *T_BOOK),
    mutant("book_checks: embedded lines counted as words", "explainer_tools/book_checks.py",
           "    words = sum(count_words(line.text) for line in scanned.lines\n"
           "                if line.kind == \"prose\" and not line.embedded)",
           "    words = sum(count_words(line.text) for line in scanned.lines\n"
           "                if line.kind == \"prose\")", *T_BOOK, T_NEW),
    mutant("book_checks: a malformed pending line accepted", "explainer_tools/book_checks.py",
           "        if len(parts) != 2 or parts[0] not in CHECKS:", "        if False:",
           *T_BOOK, T_NEW),
    # scaffold
    mutant("scaffold: an existing chapter overwritten", "explainer_tools/scaffold.py",
           "        if path.exists():\n            raise ValueError(", "        if False:\n"
           "            raise ValueError(", T_NEW),
    mutant("scaffold: a bad slug accepted", "explainer_tools/scaffold.py",
           "    if not 1 <= n <= 99 or not SLUG.match(slug):", "    if not 1 <= n <= 99:", T_NEW),
    mutant("scaffold: a chapter listed twice in the nav", "explainer_tools/scaffold.py",
           "            if int(match.group(\"number\")) == n:", "            if False:", T_NEW),
    mutant("scaffold: the script name keeps hyphens", "explainer_tools/scaffold.py",
           "    return f\"ch{n:02d}_{slug.replace('-', '_')}.py\"", "    return f\"ch{n:02d}_{slug}.py\"",
           T_NEW),
    # notebooks: what a comparison sees
    mutant("notebooks: tagged cells compared", "explainer_tools/notebooks.py",
           "        if NONDETERMINISTIC_TAG in tags:", "        if False:", *T_NBPIPE),
    mutant("notebooks: PNG size not compared", "explainer_tools/notebooks.py",
           "    return f\"{width}x{height}\"", "    return \"?\"", *T_NBPIPE),
    mutant("notebooks: error outputs ignored", "explainer_tools/notebooks.py",
           "        return [f\"[error] {output['ename']}: {output['evalue']}\"]", "        return []",
           f"{T_NEW}::test_an_error_output_is_compared_by_name_and_value"),
    # bench
    mutant("bench: budget judged at equality", "explainer_tools/bench.py",
           "    return [script for script, _, cpu, _ in rows if cpu > budget]",
           "    return [script for script, _, cpu, _ in rows if cpu >= budget]",
           "tests/test_miniature.py::test_bench_miniature_selects_the_default_tier_and_judges_cpu_"
           "time", T_NEW),
    mutant("bench: budget judged on wall time", "explainer_tools/bench.py",
           "    return [script for script, _, cpu, _ in rows if cpu > budget]",
           "    return [script for script, cpu, _, _ in rows if cpu > budget]",
           "tests/test_miniature.py::test_bench_miniature_selects_the_default_tier_and_judges_cpu_"
           "time"),
    # the package's layers (explainer_tools/__init__.py)
    mutant("layers: the runner below what it imports", "explainer_tools/__init__.py",
           "    \"runner\": 1,", "    \"runner\": 0,", "tests/test_layers.py"),
    mutant("layers: a module without a layer", "explainer_tools/__init__.py",
           "    \"verified\": 2,\n", "", "tests/test_layers.py"),
    # the command line (explainer_tools/__main__.py)
    mutant("cli: check ignores the claim check", "explainer_tools/__main__.py",
           "    status |= claims_cli.main([\"--quiet\"])", "    claims_cli.main([\"--quiet\"])", T_NEW),
    mutant("cli: a pipeline error is a traceback", "explainer_tools/__main__.py",
           "    except pipeline.PipelineError as error:\n        print(error, file=sys.stderr)\n"
           "        return 1", "    except KeyError as error:\n        print(error, file=sys.stderr)\n"
           "        return 1", T_NEW),
]
