"""The GRASP search pipeline: graph branch and text branch in parallel, fusion, reranking (LangGraph)."""
