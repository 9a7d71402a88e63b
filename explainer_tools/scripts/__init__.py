"""The script pipeline: run the chapter scripts and the companion notebook, write their outputs,
figures and stamps, embed the outputs into the pages, and check all of it against the tree.

What it may import of the other packages: `IMPORTS["scripts"]` in explainer_tools/__init__.py.

0. `settings`: the environment every script and notebook runs with, and its limits.
1. `containment`: the kernel's sandbox (bubblewrap) and the audit hook that refuse a script's
   writes outside its folders, its resource limits applied. `zygote`: the same sandbox built by
   the warm parent's children themselves (namespaces, mounts, capabilities), without bubblewrap.
   `process_tree`: a process's descendants (/proc) and how to end them all. `cpu_paths`: whether
   this CPU can take the pinned AVX2 code paths the outputs were made on. `numerics`: probes of
   the floating-point kernels, compared with the machine that committed the outputs (make
   check's last line; make numerics). `stamps`: the stamp files and the freshness rule.
   `marker_fill`: the outputs and sources written between the pages' markers.
2. `runner`: runs scripts (in the kernel's sandbox, or a warm fork parent, or plain
   subprocesses), with limits, a watchdog and dependency tracing. `notebooks`: executes and
   compares the companion notebooks. `sandbox_report`: `make sandbox`'s one line. `run_costs`:
   the recorded run time of each script, so that the longest start first. `other_kernels`:
   which committed products were made on kernels that compute other bits than this machine's,
   and how check compares them there.
3. `run_products`: a finished run judged (its output, its figures, its source changed while it
   ran).
4. `pipeline`: regenerate and check (scripts, pages, figures, stamps, notebooks).
5. `bench`: `make bench`, `make costs`, `make bench-miniature`.

The runner's own modules are hashed into every script's stamp (`settings.RUNNER_CODE`); the
notebook's stamp hashes its own (`notebooks.NOTEBOOK_RUNNER_CODE`: settings, notebooks and the
sandbox's modules).
"""

LAYERS: dict[str, int] = {
    "settings": 0,
    "containment": 1, "zygote": 1, "process_tree": 1, "cpu_paths": 1, "numerics": 1,
    "stamps": 1, "marker_fill": 1,
    "runner": 2, "notebooks": 2, "sandbox_report": 2, "run_costs": 2, "other_kernels": 2,
    "run_products": 3,
    "pipeline": 4,
    "bench": 5,
}
