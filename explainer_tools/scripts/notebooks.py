"""Execute the companion notebooks offline, store them with outputs, and check them for drift.

The source of a notebook is a jupytext "py:percent" file under `notebooks/` (reviewable diffs);
the executed notebook, outputs included, is `docs/notebooks/<name>.ipynb`, which mkdocs-jupyter
renders without executing anything at build time.

`make regenerate` executes a notebook whose stamp is stale and stores it; `make check`
re-executes every notebook in memory and compares (pipeline.py). There is no other command line.

Inputs (`notebook_inputs`, hashed into the notebook's stamp): the source, the `gpt_lab` package
(every file in it), data files under `explainer_code/data/` or `notebooks/` that the source or
`gpt_lab` names, `requirements.lock`, the provenance vocabulary `tags.py`, and the code that
runs it (`NOTEBOOK_RUNNER_CODE`: this module, `scripts/settings.py` and the sandbox's modules);
every page under `docs/` only while the notebook's code opens that folder (`ROOT / "docs"`).

Determinism. `execute_notebook` runs a python3 kernel of the repository's virtual environment,
from the repository root, with one thread for torch/OpenMP/MKL, `PYTHONHASHSEED=0`, and
`GPT2_WEIGHTS=off` (the stored notebook never depends on weights cached on the machine), and
the CPU code paths pinned (`settings.CPU_PINNING_ENV`: torch and oneDNN to AVX2, MKL to
COMPATIBLE): the training run amplifies last-bit differences, so without the pin an AVX-512
machine and an AVX2 machine store different text. It records no timings, numbers cells `cell-000`,
`cell-001`, ..., keeps only the `tags` of each cell's metadata, and writes fixed notebook
metadata. Two executions give identical bytes.

What `check` compares (`comparable_text`): every cell's source, and every output of every
cell as text -- stdout/stderr streams, `text/plain`, `text/html`, `text/markdown`, errors.
Images are not compared pixel by pixel: a PNG is recorded by its width and height only, because
its bytes depend on the Matplotlib and FreeType builds, and each figure's numbers are printed as
text beside it (and compared there). The same holds for a PNG inlined in an HTML output as a
`data:image/png;base64,...` URI (how the notebook gives its figures a text alternative): the
URI is replaced by the same size marker, and the rest of the HTML, alt text included, is
compared. The one exclusion rule: the outputs of a cell tagged
`nondeterministic` (wall-clock timings) are left out; the comparison text says so in their place.
"""

from __future__ import annotations

import copy
import difflib
import os
import re
import struct
import subprocess
import sys
import tempfile
from base64 import b64decode
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # nbformat (and jsonschema under it) loads in seconds: only when used
    import nbformat

from explainer_tools.layout import DEFAULT, Layout
from explainer_tools.scripts.containment import ProcessCap, sandbox_command, sandbox_status
from explainer_tools.scripts.process_tree import kill_tree
from explainer_tools.scripts.settings import CPU_PINNING_ENV, PROCESS_LIMIT

NOTEBOOK_CODE = "gpt_lab"  # the notebooks' toolkit, a package under explainer_code/
READS_PAGES = re.compile(r"""/\s*["']docs["']""")
# The code that decides how notebooks run, part of every notebook stamp (settings.RUNNER_CODE is
# the chapter scripts' counterpart): the settings, this module, and the sandbox it runs in.
NOTEBOOK_RUNNER_CODE = ("explainer_tools/scripts/settings.py",
                        "explainer_tools/scripts/notebooks.py",
                        "explainer_tools/scripts/containment.py",
                        "explainer_tools/scripts/process_tree.py")
NONDETERMINISTIC_TAG = "nondeterministic"
CELL_TIMEOUT_S = 600
KERNEL_ENV = {
    "PYTHONHASHSEED": "0",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "GPT2_WEIGHTS": "off",  # see gpt_lab.hf_weights.find_gpt2_weights
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",  # no debugger warning on kernel start
    "JUPYTER_PLATFORM_DIRS": "1",
    **CPU_PINNING_ENV,  # same results on any x86-64 CPU with AVX2 (see settings.py)
}
NOTEBOOK_CLAIMS_CELL = (  # = gpt_lab.checks.CHECK_CELL (not imported: gpt_lab needs torch)
    "from gpt_lab.checks import assert_notebook_claims\nassert_notebook_claims(globals())"
)
NOTEBOOK_METADATA = {
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}


def uses_claim_checks(nb: Any) -> bool:
    """Whether a notebook's claims are checked after its last cell: those built on the gpt_lab
    toolkit are (gpt_lab/checks.py holds their claims); any other notebook runs as written."""
    return any(cell.cell_type == "code" and "gpt_lab" in cell.source for cell in nb.cells)


def kernel_python(layout: Layout) -> str:
    """The repository venv's interpreter when there is one, else the running interpreter."""
    venv_python = layout.root / ".venv" / "bin" / "python"
    return str(venv_python) if venv_python.is_file() else sys.executable


def read_source(source_path: Path) -> nbformat.NotebookNode:
    """The notebook of a py:percent file (or of an .ipynb), without outputs."""
    import jupytext  # imported here: a no-op regenerate should not pay for it

    fmt = "ipynb" if source_path.suffix == ".ipynb" else "py:percent"
    return jupytext.read(source_path, fmt=fmt)


def coalesce_streams(outputs: list) -> list:
    """Merge consecutive stream outputs of the same stream (stdout, stderr) into one.

    The kernel sends printed text in chunks whose boundaries depend on timing (it flushes on a
    timer), so the same cell may give one stream output on one run and two on the next. The
    text is the same; merging makes the stored notebook and its comparison independent of it.
    """
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] = _text(previous["text"]) + _text(output["text"])
        else:
            merged.append(output)
    return merged


def _text(value: str | list[str]) -> str:
    return "".join(value) if isinstance(value, list) else value


def normalise(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Fixed cell ids, only `tags` in cell metadata, fixed notebook metadata, nbformat 4.5,
    consecutive stream outputs merged."""
    import nbformat

    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:03d}"
        if cell.get("cell_type") == "code":
            cell["outputs"] = coalesce_streams(cell.get("outputs", []))
        tags = cell.get("metadata", {}).get("tags", [])
        cell["metadata"] = nbformat.NotebookNode({"tags": list(tags)} if tags else {})
    nb.metadata = nbformat.NotebookNode(NOTEBOOK_METADATA)
    nb.nbformat, nb.nbformat_minor = 4, 5
    return nb


def execute_notebook(source_path: Path, layout: Layout = DEFAULT,
                     timeout_s: int = CELL_TIMEOUT_S) -> bytes:
    """Execute the notebook of `source_path` (from the root of `layout`) and return the .ipynb
    bytes, outputs included.

    The execution runs in a child process (`_child`),
    so the kernel client's zmq sockets never live in the caller's process; where the chapter
    scripts run in the kernel's sandbox, so does the child, kernel included (the tree read-only
    but its scratch folder and Matplotlib's, its own PID and network namespaces, its processes
    capped as a script's are: containment.py). A cell that raises fails the run: `NotebookError`
    carries the child's report of the failing cell.
    """
    child = ("import sys; sys.path.insert(0, sys.argv[3]); "
             "from explainer_tools.scripts.notebooks import _child; "
             "sys.exit(_child(sys.argv[1], int(sys.argv[2]), sys.argv[4]))")
    # The kernel's connection file (which holds its key), torch's compile cache and any other
    # temporary file go into a folder of our own, removed when the execution ends.
    with tempfile.TemporaryDirectory(prefix="notebook-") as scratch:
        env = {**os.environ, "TMPDIR": scratch, "JUPYTER_RUNTIME_DIR": f"{scratch}/runtime",
               "TORCHINDUCTOR_CACHE_DIR": f"{scratch}/torchinductor",
               "IPYTHONDIR": f"{scratch}/ipython"}  # IPython's profile and history: not $HOME
        prefix, cap = [], None
        if sandbox_status():
            prefix = sandbox_command([scratch], [], str(layout.root))
            cap = ProcessCap.make(f"explainer-{os.getpid()}-notebook", PROCESS_LIMIT)
        proc = subprocess.Popen(
            [*prefix, sys.executable, "-c", child, str(source_path), str(timeout_s),
             str(DEFAULT.root), str(layout.root)],  # the tools' home, the repository's root
            cwd=layout.root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env, start_new_session=True,
            preexec_fn=cap.join if cap else None)
        RUNNING.add(proc)
        try:
            stdout, stderr = proc.communicate()
        finally:
            if proc.poll() is None:  # interrupted here: end it, kernel included
                kill_tree(proc.pid)
                proc.wait()
            RUNNING.discard(proc)
            if cap is not None:
                cap.close()
    if proc.returncode != 0:
        raise NotebookError(
            f"executing {source_path} failed (exit {proc.returncode}):\n"
            + stderr.decode("utf-8", "replace")
        )
    return stdout


# The executions under way in this process, so that a check that stops early can end them
# (`stop_executions`) instead of waiting for them in another thread.
RUNNING: set[subprocess.Popen[bytes]] = set()


def stop_executions() -> None:
    """End every notebook execution this process has under way, its kernel included."""
    for proc in list(RUNNING):
        kill_tree(proc.pid)


class NotebookError(RuntimeError):
    """A notebook whose execution failed."""


def _execute_here(source_path: Path, timeout_s: int, layout: Layout) -> bytes:
    """Execute in this process with nbclient and a python3 kernel of the repository's venv,
    from the repository root, with the environment in `KERNEL_ENV`."""
    import nbformat
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    class _RepoKernelSpecs(KernelSpecManager):
        """Always the repository's own ipykernel, whatever kernels the user has installed."""

        def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
            return KernelSpec(
                argv=[kernel_python(layout), "-m", "ipykernel_launcher", "-f",
                      "{connection_file}"],
                display_name="Python 3 (ipykernel)",
                language="python",
            )

    nb = normalise(read_source(source_path))
    # The author-facing claims of the notebook's prose, checked in the same kernel after the
    # last cell (gpt_lab/checks.py); the check cell is removed before the notebook is stored.
    checked = uses_claim_checks(nb)
    if checked:
        nb.cells.append(nbformat.v4.new_code_cell(NOTEBOOK_CLAIMS_CELL))
    km = KernelManager(kernel_name="python3", kernel_spec_manager=_RepoKernelSpecs())
    client = NotebookClient(
        nb,
        km=km,
        timeout=timeout_s,
        record_timing=False,
        allow_errors=False,
        # ipykernel warns on every start that its local TCP transport is unencrypted
        extra_arguments=["--IPKernelApp.log_level=ERROR"],
        resources={"metadata": {"path": str(layout.root)}},
    )
    # no __pycache__ in the tree from the kernel (run_environment, hence the stamp, has it too)
    client.execute(env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **KERNEL_ENV})
    if checked:
        nb.cells.pop()  # the claims cell
    nb = normalise(nb)
    nbformat.validate(nb)
    return (nbformat.writes(nb, version=4) + "\n").encode("utf-8")


def _png_size(b64: str) -> str:
    data = b64decode(b64)
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    return f"{width}x{height}"


INLINE_PNG = re.compile(r"data:image/png;base64,(?P<data>[A-Za-z0-9+/=]+)")


def _without_inline_pngs(html_text: str) -> str:
    """HTML with every inlined PNG replaced by its size marker (see the module docstring)."""
    return INLINE_PNG.sub(
        lambda m: f"[image/png {_png_size(m.group('data'))}: pixels not compared]", html_text)


def _output_text(output: nbformat.NotebookNode) -> list[str]:
    kind = output["output_type"]
    if kind == "stream":
        return [f"[{output['name']}]", output["text"]]
    if kind == "error":
        return [f"[error] {output['ename']}: {output['evalue']}"]
    lines = []
    data = output.get("data", {})
    for mime in sorted(data):
        if mime == "image/png":
            lines.append(f"[image/png {_png_size(data[mime])}: pixels not compared]")
        elif mime.startswith("text/"):
            value = data[mime]
            text = "".join(value) if isinstance(value, list) else value
            lines += [f"[{mime}]", _without_inline_pngs(text) if mime == "text/html" else text]
        else:
            lines.append(f"[{mime}: not compared]")
    return lines


def comparable_text(notebook_bytes: bytes) -> str:
    """The parts of a stored notebook that must not change between executions, as text.

    Every cell's source and outputs, in order; a PNG contributes only its size; the outputs of
    cells tagged `nondeterministic` are replaced by one line saying they were excluded.
    """
    import nbformat

    nb = nbformat.reads(notebook_bytes.decode("utf-8"), as_version=4)
    lines: list[str] = []
    for i, cell in enumerate(nb.cells):
        tags = cell.get("metadata", {}).get("tags", [])
        lines.append(f"===== cell {i} ({cell['cell_type']}) tags={sorted(tags)} =====")
        lines.append(cell["source"])
        if cell["cell_type"] != "code":
            continue
        lines.append("----- outputs -----")
        if NONDETERMINISTIC_TAG in tags:
            lines.append(f"(excluded: the cell is tagged '{NONDETERMINISTIC_TAG}')")
            continue
        for output in coalesce_streams(copy.deepcopy(cell.get("outputs", []))):
            lines += _output_text(output)
    return "\n".join(line.rstrip("\n") for line in lines) + "\n"


def diff_notebooks(committed: bytes, fresh: bytes, name: str) -> str:
    """Unified diff of the comparable text of two notebooks ('' when they agree)."""
    return "".join(
        difflib.unified_diff(
            comparable_text(committed).splitlines(keepends=True),
            comparable_text(fresh).splitlines(keepends=True),
            fromfile=f"{name} (committed)",
            tofile=f"{name} (re-executed)",
        )
    )


def notebook_inputs(source: Path, layout: Layout = DEFAULT) -> list[str]:
    """Everything an execution of the notebook at `source` reads from the repository (the lock
    and the runner code are added by the stamp)."""
    toolkit = layout.code_dir / NOTEBOOK_CODE
    code = sorted(p for p in toolkit.rglob("*") if p.is_file() and "__pycache__" not in
                  p.parts) if toolkit.is_dir() else []
    texts = [source.read_text(encoding="utf-8")] + [
        p.read_text(encoding="utf-8", errors="replace") for p in code if p.suffix == ".py"]
    code += chapter_modules(texts[0], layout.code_dir)
    data_dirs = (layout.code_dir / "data", layout.notebook_source_dir)
    data = [p for folder in data_dirs if folder.is_dir() for p in sorted(folder.rglob("*"))
            if p.is_file() and p != source and p.suffix != ".py"
            and any(p.name in text for text in texts)]
    # gpt_lab strips provenance tags with the site's own grammar
    tags = layout.tools_dir / "tags.py"
    # A notebook whose own code opens the site's pages (`ROOT / "docs"`: the first notebook
    # trained its model on them) depends on every page; one that reads a frozen data file does
    # not. Only the source counts: gpt_lab.corpus names docs/ to *rebuild* the frozen snapshot
    # (`make corpus`, on purpose), which no execution does.
    pages = layout.markdown_pages() if READS_PAGES.search(texts[0]) else []
    relative = layout.relative
    return sorted({relative(source), *map(relative, code), *map(relative, data),
                   relative(layout.lock_file), relative(tags), *map(relative, pages)})


IMPORTED = re.compile(r"(?:^|;)\s*(?:import|from)\s+([A-Za-z_]\w*)", re.MULTILINE)


def chapter_modules(text: str, code_dir: Path) -> list[Path]:
    """The chapters' own modules (`explainer_code/<name>.py`) that a notebook's source imports,
    e.g. `script_io`, whose figure encoding lands in the stored notebook.

    >>> [p.name for p in chapter_modules("import os; import script_io", DEFAULT.code_dir)]
    ['script_io.py']
    """
    names = sorted(set(IMPORTED.findall(text)))
    return [code_dir / f"{name}.py" for name in names if (code_dir / f"{name}.py").is_file()]


def _child(source: str, timeout_s: int, root: str) -> int:
    """The child process of `execute_notebook`: the executed notebook's bytes on stdout."""
    sys.stdout.buffer.write(_execute_here(Path(source), timeout_s, Layout(Path(root))))
    return 0
