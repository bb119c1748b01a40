"""The Gradio demo over the search pipeline (`grasp ui`): `app` (layout and handlers), `panels` (what each
pipeline event changes on the page), `tables` and `graphs` (pure renderers), `cypher_link` (Neo4j Browser
link and `:param` lines)."""

from grasp_agent.ui.app import build_app, launch_options

__all__ = ["build_app", "launch_options"]
