// AdaPath Path-Bank construction on GDS. Values are $parameters only: labels and relation types enter the
// projections as lists of strings (GDS reads them as data, not as Cypher identifiers).

// name: drop_graph
CALL gds.graph.drop($graph, false) YIELD graphName
RETURN graphName;

// name: project_skb
// The whole SKB, every relation both ways (PPR walks a relation in either direction, as paths do).
CALL gds.graph.project($graph, $labels, $relationships) YIELD nodeCount, relationshipCount
RETURN nodeCount, relationshipCount;

// name: node_ids
// GDS node ids (the internal ids) of SKB nodes, one label at a time so the id constraint's index is used.
UNWIND $ids AS node_id
MATCH (n:{{label}} {id: node_id})
RETURN node_id AS id, id(n) AS nodeId;

// name: personalized_pagerank
// The walk's $keep best nodes only: a seeded walk reaches nearly the whole SKB, and streaming every score to
// the client cost more than the walk itself.
CALL gds.pageRank.stream($graph, {sourceNodes: $sources, dampingFactor: $damping, maxIterations: $iterations})
YIELD nodeId, score
WHERE score > 0
RETURN nodeId, score
ORDER BY score DESC
LIMIT $keep;

// name: project_corridor
// The corridor's relationships in both orientations, each costing -log(eps + mean relevance of its ends),
// relevance r(v) = max(0, cos(q, doc(v))); vector.similarity.cosine is (1 + cos) / 2, hence 2 s - 1.
// nodeIds: the corridor nodes the projection holds (those with a relationship inside it); Yen cannot start or
// end at another.
MATCH (u)-[r]-(v)
WHERE id(u) IN $corridor AND id(v) IN $corridor AND type(r) IN $types
WITH u, v,
     CASE WHEN u.doc_embedding IS NULL THEN 0.0
          ELSE 2.0 * vector.similarity.cosine($queryVector, u.doc_embedding) - 1.0 END AS cu,
     CASE WHEN v.doc_embedding IS NULL THEN 0.0
          ELSE 2.0 * vector.similarity.cosine($queryVector, v.doc_embedding) - 1.0 END AS cv
WITH u, v, CASE WHEN cu > 0.0 THEN cu ELSE 0.0 END AS ru, CASE WHEN cv > 0.0 THEN cv ELSE 0.0 END AS rv
WITH gds.graph.project($graph, u, v, {relationshipProperties: {cost: -log($eps + (ru + rv) / 2.0)}}) AS g,
     collect(DISTINCT id(u)) AS nodeIds
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount, nodeIds;

// name: yens
CALL gds.shortestPath.yens.stream($graph, {sourceNode: $source, targetNode: $target, k: $k,
                                           relationshipWeightProperty: 'cost'})
YIELD index, totalCost, nodeIds
RETURN index, totalCost, nodeIds
ORDER BY index;

// name: path_steps
// For consecutive nodes of a path: each stored relationship joining them, its type and whether it points
// along the path; the nodes' SKB labels and ids.
UNWIND range(0, size($nodeIds) - 2) AS i
WITH i, gds.util.asNode($nodeIds[i]) AS a, gds.util.asNode($nodeIds[i + 1]) AS b
MATCH (a)-[r]-(b)
WHERE type(r) IN $types
RETURN i, a.id AS sourceId, b.id AS targetId, [l IN labels(a) WHERE l IN $labels][0] AS sourceLabel,
       [l IN labels(b) WHERE l IN $labels][0] AS targetLabel, type(r) AS type, startNode(r) = a AS outgoing
ORDER BY i, type, outgoing DESC;

// ---- Path-Bank storage: labels AdaPathBank, AdaPathQuery, AdaPathMetaPath (outside every SKB schema) ----

// name: bank_query_constraint
CREATE CONSTRAINT adapath_query_id IF NOT EXISTS FOR (q:AdaPathQuery) REQUIRE q.id IS UNIQUE;

// name: bank_metapath_constraint
CREATE CONSTRAINT adapath_metapath_signature IF NOT EXISTS FOR (m:AdaPathMetaPath) REQUIRE m.signature IS UNIQUE;

// name: bank_vector_index
CREATE VECTOR INDEX adapath_query_embedding IF NOT EXISTS
FOR (q:AdaPathQuery) ON q.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}};

// name: read_bank
MATCH (b:AdaPathBank)
RETURN b.skb AS skb, b.fingerprint AS fingerprint, b.embedder AS embedder;

// name: claim_bank
MERGE (b:AdaPathBank {skb: $skb})
SET b.fingerprint = $fingerprint, b.embedder = $embedder, b.config = $config;

// name: clear_bank
MATCH (n)
WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath
DETACH DELETE n;

// name: stored_query_ids
MATCH (q:AdaPathQuery)
RETURN q.id AS id;

// name: write_query
// One training query and the meta-paths its paths follow (replacing what an earlier build stored for it).
// `written` orders the writes: the vector index's approximate neighbours depend on the order it received the
// vectors, so an imported bank (bank_transfer.py) replays it to answer exactly as the built one.
MERGE (q:AdaPathQuery {id: $id})
SET q.text = $text, q.topic_ids = $topicIds, q.answer_ids = $answerIds, q.corridor_nodes = $corridorNodes,
    q.paths = $pathCount, q.written = $written
WITH q
CALL db.create.setNodeVectorProperty(q, 'embedding', $vector)
WITH q
OPTIONAL MATCH (q)-[old:ADAPATH_USES]->()
DELETE old
WITH DISTINCT q
UNWIND $metaPaths AS m
MERGE (p:AdaPathMetaPath {signature: m.signature})
  ON CREATE SET p.hops = m.hops, p.start_label = m.startLabel, p.answer_label = m.answerLabel,
                p.relations = m.relations, p.outgoing = m.outgoing, p.labels = m.labels
MERGE (q)-[u:ADAPATH_USES]->(p)
SET u.cost = m.cost, u.paths = m.paths
RETURN count(u) AS written;

// name: refresh_support
// A meta-path's support: how many training queries used it.
MATCH (p:AdaPathMetaPath)
SET p.support = COUNT { (p)<-[:ADAPATH_USES]-(:AdaPathQuery) }
RETURN count(p) AS metaPaths, sum(p.support) AS uses;

// ---- Path-Bank packs (grasp_agent/adapath/bank_pack.py): the bank read whole; an import writes it back
// ---- through claim_bank, write_query and refresh_support above, as a build does ----

// name: export_bank
MATCH (b:AdaPathBank)
RETURN b.skb AS skb, b.fingerprint AS fingerprint, b.embedder AS embedder, b.config AS config, keys(b) AS keys;

// name: export_queries
// Every bank query with its embedding and its links, in the order they were written (banks from before
// `written` by id); keys() let the exporter refuse properties it would drop.
MATCH (q:AdaPathQuery)
OPTIONAL MATCH (q)-[u:ADAPATH_USES]->(m:AdaPathMetaPath)
WITH q, u, m
ORDER BY u.cost ASC, m.signature ASC
WITH q, collect(CASE WHEN u IS NULL THEN null
                     ELSE {signature: m.signature, cost: u.cost, paths: u.paths, keys: keys(u)} END) AS uses
RETURN q.id AS id, q.text AS text, q.topic_ids AS topicIds, q.answer_ids AS answerIds,
       q.corridor_nodes AS corridorNodes, q.paths AS paths, q.written AS written, q.embedding AS embedding,
       keys(q) AS keys, uses
ORDER BY written ASC, id ASC;

// name: export_meta_paths
// The meta-paths some query uses (support is recounted by refresh_support on import).
MATCH (m:AdaPathMetaPath)
WHERE EXISTS { (m)<-[:ADAPATH_USES]-(:AdaPathQuery) }
RETURN m.signature AS signature, m.hops AS hops, m.start_label AS startLabel, m.answer_label AS answerLabel,
       m.labels AS labels, m.relations AS relations, m.outgoing AS outgoing, keys(m) AS keys
ORDER BY signature;

// name: count_bank_queries
MATCH (q:AdaPathQuery)
RETURN count(q) AS queries;

// name: await_bank_index
// An imported bank answers at once: its vector index is online before the import returns.
CALL db.awaitIndex($index, $seconds);

// name: skb_node_ids
// One label's SKB ids, for the content digest that ties a pack to the data it was built on.
MATCH (n:{{label}})
RETURN toString(n.id) AS id;

// name: skb_relation_count
MATCH ()-[r:{{type}}]->()
RETURN count(r) AS relationships;

// name: bank_meta_paths
// Meta-paths of the training queries most similar to the question (adapath.bank.metaPaths: each similar
// query votes with its similarity for every meta-path it used), optionally filtered.
CALL adapath.bank.metaPaths($queryVector, {queries: $queries, limit: $limit, hops: $hops, startLabel: $startLabel,
                                           answerLabel: $answerLabel, exclude: $exclude})
YIELD signature, labels, relations, outgoing, support, vote, voters, examples, firstVote
RETURN signature, labels, relations, outgoing, support, vote, voters, examples, firstVote;

// name: own_meta_paths
// The meta-paths one bank query used, cheapest first (the teacher's plans for planner training).
MATCH (q:AdaPathQuery {id: $id})-[u:ADAPATH_USES]->(m:AdaPathMetaPath)
RETURN m.signature AS signature, m.labels AS labels, m.relations AS relations, m.outgoing AS outgoing,
       u.cost AS cost
ORDER BY u.cost ASC, m.signature ASC;

// name: bfs
CALL adapath.bfs($topicIds, $metaPaths, $queryVector, $config)
YIELD nodeIds, names, labels, relations, outgoing, score, metaPath, truncated
RETURN nodeIds, names, labels, relations, outgoing, score, metaPath, truncated;

// name: expand
// One guided step (or unguided, with a null step) from the last node of each frontier path.
CALL adapath.expand($frontier, $step, $queryVector, $config)
YIELD path, fromId, nodeId, name, label, relation, outgoing, score, truncated
RETURN path, fromId, nodeId, name, label, relation, outgoing, score, truncated;

// name: node_names
// Nodes of one label by SKB id, with their names (topic nodes under a meta-path's start; gold answers).
UNWIND $ids AS node_id
MATCH (n:{{label}} {id: node_id})
RETURN n.id AS id, coalesce(n.name, toString(n.id)) AS name;

// ---- Cost profile: Yen on the whole SKB with the query's costs, against Yen in the corridor ----

// name: project_weighted_skb
// Every SKB relationship in both orientations with the corridor's cost formula (see project_corridor).
MATCH (u)-[r]-(v)
WHERE type(r) IN $types
WITH u, v,
     CASE WHEN u.doc_embedding IS NULL THEN 0.0
          ELSE 2.0 * vector.similarity.cosine($queryVector, u.doc_embedding) - 1.0 END AS cu,
     CASE WHEN v.doc_embedding IS NULL THEN 0.0
          ELSE 2.0 * vector.similarity.cosine($queryVector, v.doc_embedding) - 1.0 END AS cv
WITH u, v, CASE WHEN cu > 0.0 THEN cu ELSE 0.0 END AS ru, CASE WHEN cv > 0.0 THEN cv ELSE 0.0 END AS rv
WITH gds.graph.project($graph, u, v, {relationshipProperties: {cost: -log($eps + (ru + rv) / 2.0)}}) AS g
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount;

// name: yens_estimate
CALL gds.shortestPath.yens.stream.estimate($graph, {sourceNode: $source, targetNode: $target, k: $k,
                                                    relationshipWeightProperty: 'cost'})
YIELD bytesMax
RETURN bytesMax;

// name: graph_size
CALL gds.graph.list($graph) YIELD sizeInBytes
RETURN sizeInBytes;
