// Schema shared by every grasp knowledge base. Applied by grasp_agent.db.schema.apply_schema; each
// statement is idempotent. Per-label constraints and vector indexes of a loaded SKB are created by the loader.

// name: constraint_meta_key
// One :GraspMeta node per fact about the loaded SKB (dataset, embedding model, load progress).
CREATE CONSTRAINT grasp_meta_key IF NOT EXISTS
FOR (m:GraspMeta) REQUIRE m.key IS UNIQUE;
