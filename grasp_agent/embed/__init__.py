"""Embedders: one interface (neo4j-graphrag's Embedder plus batching), several backends.

- `base.GraspEmbedder`: the interface; `with_max_tokens(n)` gives a sibling truncating at n tokens.
- `local.LocalEmbedder`: all-MiniLM-L6-v2 / all-mpnet-base-v2 from PyPI-packaged model files
  (`packaged_models`), on ONNX Runtime (`onnx_graph` builds the graph from the safetensors, `onnx_encoder`
  runs it, fp32 or int8) or in numpy (no torch); fp32 backends stay within 1e-6
  of sentence-transformers.
- `openai_compatible.OpenAICompatibleEmbedder`: any `/v1/embeddings` server (vLLM, llama.cpp, OpenAI).
- `cache.CachedEmbedder`: SQLite content-hash cache in front of any of them.
- `factory.make_embedder(settings)`: the configured backend behind the cache.
- `python -m grasp_agent.evaluation.embed_bench`: throughput on this machine.
"""
