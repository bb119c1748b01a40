"""The demo as a Gradio app file, for developing the UI with hot reload: from the repository root, with a
running instance that holds an SKB (`make demo` or `grasp db start`),

    .venv/bin/gradio ui/app.py          # reloads the page whenever grasp_agent/ui/ changes

Users run `grasp ui` (or `make demo`); this file only follows Gradio's convention of a module-level `demo`.
"""

from __future__ import annotations

from grasp_agent.api import Grasp
from grasp_agent.config import Settings
from grasp_agent.ui import build_app, launch_options

settings = Settings()
grasp = Grasp.from_config(settings, progress=True)  # Gradio's reloader re-runs this file; the old one is dropped
demo = build_app(grasp, settings)

if __name__ == "__main__":
    demo.launch(server_name="127.0.0.1", server_port=7860, **launch_options("127.0.0.1", 7860, loopback=True))
