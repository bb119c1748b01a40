"""The demo UI, importable from the repository root; the code is in `grasp_agent.ui` (which ships)."""

from grasp_agent.ui import build_app, launch_options

__all__ = ["build_app", "launch_options"]
