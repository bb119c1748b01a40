"""Semi-structured knowledge bases: schema model, sources (HPO, STaRK, generic files), documents, ingestion."""
