"""Print, as JSON, the URL paths of the pages `mkdocs build` of the project in argv[1] would
render: MkDocs' own file collection and every plugin's and hook's on_files, without rendering."""
import json
import os
import sys

os.chdir(sys.argv[1])
sys.path.insert(0, ".")  # the project's own explainer_tools, as `python -m mkdocs` finds it
from mkdocs.config import load_config  # noqa: E402
from mkdocs.structure.files import get_files  # noqa: E402

config = load_config("mkdocs.yml")
config.plugins.on_startup(command="build", dirty=False)
config = config.plugins.on_config(config)
files = get_files(config)
files.add_files_from_theme(config.theme.get_env(), config)
files = config.plugins.on_files(files, config=config)
print(json.dumps(sorted(f.url for f in files.documentation_pages())))
