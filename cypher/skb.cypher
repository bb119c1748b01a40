// Loading a semi-structured knowledge base. Values are $parameters. {{label}}, {{type}}, ... are
// identifiers: filled only by grasp_agent.cypher_queries.fill_identifiers, which checks them against the
// SKB schema's identifier alphabet and backtick-quotes them.

// name: node_constraint
CREATE CONSTRAINT $name IF NOT EXISTS FOR (n:{{label}}) REQUIRE n.id IS UNIQUE;

// name: merge_nodes
// grasp_load stamps the load generation, so a reload can remove what the files no longer hold.
UNWIND $rows AS row
MERGE (n:{{label}} {id: row.id})
SET n += row.properties, n.name = row.name, n.grasp_load = $generation
RETURN count(n) AS written;

// name: merge_edges
// Endpoints are looked up through the uniqueness constraints' indexes; a missing endpoint drops the row,
// which the loader detects by comparing `written` with the batch size.
UNWIND $rows AS row
MATCH (a:{{source_label}} {id: row.source})
MATCH (b:{{target_label}} {id: row.target})
MERGE (a)-[r:{{type}}]->(b)
SET r += row.properties, r.grasp_load = $generation
RETURN count(r) AS written;

// name: nodes_without_id
// Nodes of a schema label that grasp did not write (every node it writes has an id).
MATCH (n:{{label}})
WHERE n.id IS NULL
RETURN count(n) AS count;

// name: delete_stale_nodes
// One batch of a label's nodes that the current load generation did not write (fixed ids, removed rows).
MATCH (n:{{label}})
WHERE n.grasp_load IS NULL OR n.grasp_load <> $generation
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted;

// name: delete_stale_edges
MATCH (:{{source_label}})-[r:{{type}}]->(:{{target_label}})
WHERE r.grasp_load IS NULL OR r.grasp_load <> $generation
WITH r LIMIT $batch
DELETE r
RETURN count(*) AS deleted;

// name: delete_label_nodes
// One batch of a label's nodes, for `grasp skb drop`.
MATCH (n:{{label}})
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted;

// name: drop_constraint
// Names cannot be parameters in DROP; ours pass the identifier check.
DROP CONSTRAINT {{name}} IF EXISTS;

// name: drop_index
DROP INDEX {{name}} IF EXISTS;

// name: delete_meta
MATCH (m:GraspMeta)
WHERE m.key IN $keys
DELETE m;

// name: read_meta
MATCH (m:GraspMeta {key: $key})
RETURN m.value AS value;

// name: write_meta
MERGE (m:GraspMeta {key: $key})
SET m.value = $value;

// name: node_page
// One page of a label's nodes in id order, with the text fields the document renders. Ids may mix strings
// and integers (JSONL keeps their type); ORDER BY puts strings before numbers, and `>` across the two types
// is null, so after a string the integers still come. Nodes without an id are refused before loading.
MATCH (n:{{label}})
WHERE n.id IS NOT NULL AND ($after IS NULL OR n.id > $after OR ($after IS :: STRING AND n.id IS :: INTEGER))
RETURN n.id AS id, n.name AS name, [field IN $fields | n[field]] AS values, n.doc_hash AS doc_hash
ORDER BY n.id
LIMIT $limit;

// name: outgoing_neighbours
// Most specific neighbours first (fewest connections), then by name, so short lists stay informative.
UNWIND $ids AS node_id
MATCH (n:{{label}} {id: node_id})
RETURN node_id,
       COLLECT { MATCH (n)-[:{{type}}]->(m:{{other_label}})
                 RETURN m.name ORDER BY COUNT { (m)--() }, m.name LIMIT $limit } AS names,
       COUNT { (n)-[:{{type}}]->(:{{other_label}}) } AS total;

// name: incoming_neighbours
UNWIND $ids AS node_id
MATCH (n:{{label}} {id: node_id})
RETURN node_id,
       COLLECT { MATCH (n)<-[:{{type}}]-(m:{{other_label}})
                 RETURN m.name ORDER BY COUNT { (m)--() }, m.name LIMIT $limit } AS names,
       COUNT { (n)<-[:{{type}}]-(:{{other_label}}) } AS total;

// name: set_documents
UNWIND $rows AS row
MATCH (n:{{label}} {id: row.id})
SET n.doc = row.doc, n.doc_hash = row.doc_hash
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'name_embedding', row.name_vector)
CALL db.create.setNodeVectorProperty(n, 'doc_embedding', row.doc_vector)
RETURN count(n) AS written;

// name: vector_index
CREATE VECTOR INDEX $name IF NOT EXISTS
FOR (n:{{label}}) ON n.{{property}}
OPTIONS $options;

// name: await_indexes
CALL db.awaitIndexes($timeout_s);

// name: index_states
SHOW VECTOR INDEXES YIELD name, state, populationPercent
WHERE name IN $names
RETURN name, state, populationPercent;

// name: label_count
MATCH (n:{{label}})
RETURN count(n) AS count;

// name: edge_count
MATCH (:{{source_label}})-[r:{{type}}]->(:{{target_label}})
RETURN count(r) AS count;

// name: embedded_count
MATCH (n:{{label}})
WHERE n.doc_embedding IS NOT NULL AND n.name_embedding IS NOT NULL
RETURN count(n) AS count;

// name: stored_vectors
// One page of a label's stored documents and embeddings, in id order (what a vector pack is made from).
MATCH (n:{{label}})
WHERE n.id IS NOT NULL AND ($after IS NULL OR n.id > $after OR ($after IS :: STRING AND n.id IS :: INTEGER))
  AND n.doc_embedding IS NOT NULL AND n.name_embedding IS NOT NULL
RETURN n.id AS id, n.name AS name, n.doc AS doc, n.doc_hash AS doc_hash, n.name_embedding AS name_vector,
       n.doc_embedding AS doc_vector
ORDER BY n.id
LIMIT $limit;

// name: property_sample
// The first $sample nodes of a type by id (deterministic), each as its $fields' values in order: which of them
// hold quantities a plan can rank by or keys a question names nodes by (grasp_agent.skb.property_kinds).
MATCH (n:{{label}})
WITH n ORDER BY n.id LIMIT $sample
RETURN [field IN $fields | n[field]] AS values;
