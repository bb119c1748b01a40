"""grasp: Neo4j-native hybrid retrieval over semi-structured knowledge bases."""

__version__ = "0.1.0"
