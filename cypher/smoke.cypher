// A five-node graph that proves the stack end to end: a vector index on Community edition, GDS
// personalized PageRank and APOC. Used by `grasp db smoke` and by the tests. Values are parameters.

// name: constraint
CREATE CONSTRAINT grasp_smoke_id IF NOT EXISTS
FOR (n:GraspSmokeItem) REQUIRE n.id IS UNIQUE;

// name: vector_index
// The first vector index example: cosine over 4-dimensional vectors.
CREATE VECTOR INDEX grasp_smoke_embedding IF NOT EXISTS
FOR (n:GraspSmokeItem) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.similarity_function`: 'cosine'}};

// name: merge_items
UNWIND $rows AS row
MERGE (n:GraspSmokeItem {id: row.id})
SET n.name = row.name
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)
RETURN count(n) AS items;

// name: merge_links
UNWIND $links AS link
MATCH (a:GraspSmokeItem {id: link[0]}), (b:GraspSmokeItem {id: link[1]})
MERGE (a)-[:LINKS]->(b)
RETURN count(*) AS links;

// name: await_indexes
CALL db.awaitIndexes($timeout_s);

// name: vector_query
CALL db.index.vector.queryNodes('grasp_smoke_embedding', $k, $vector)
YIELD node, score
RETURN node.id AS id, score;

// name: gds_drop
CALL gds.graph.drop($graph, false) YIELD graphName
RETURN graphName;

// name: gds_project
CALL gds.graph.project($graph, 'GraspSmokeItem', {LINKS: {orientation: 'UNDIRECTED'}})
YIELD nodeCount, relationshipCount
RETURN nodeCount, relationshipCount;

// name: gds_personalized_pagerank
MATCH (source:GraspSmokeItem {id: $source_id})
CALL gds.pageRank.stream($graph, {sourceNodes: [source], maxIterations: 50})
YIELD nodeId, score
RETURN gds.util.asNode(nodeId).id AS id, score
ORDER BY score DESC;

// name: apoc_version
RETURN apoc.version() AS version;
