"""Adapters to the frameworks RAG apps use: a LangChain tool and a neo4j-graphrag Retriever."""
