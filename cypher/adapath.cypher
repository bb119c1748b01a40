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
CALL gds.pageRank.stream($graph, {sourceNodes: $sources, dampingFactor: $damping, maxIterations: $iterations})
YIELD nodeId, score
WHERE score > 0
RETURN nodeId, score;

// name: project_corridor
// The corridor's relationships in both orientations, each costing -log(eps + mean relevance of its ends),
// relevance r(v) = max(0, cos(q, doc(v))); vector.similarity.cosine is (1 + cos) / 2, hence 2 s - 1.
MATCH (u)-[r]-(v)
WHERE id(u) IN $corridor AND id(v) IN $corridor AND type(r) IN $types
WITH u, v,
     CASE WHEN u.doc_embedding IS NULL THEN 0.0
          ELSE 2.0 * vector.similarity.cosine($queryVector, u.doc_embedding) - 1.0 END AS cu,
     CASE WHEN v.doc_embedding IS NULL THEN 0.0
          ELSE 2.0 * vector.similarity.cosine($queryVector, v.doc_embedding) - 1.0 END AS cv
WITH u, v, CASE WHEN cu > 0.0 THEN cu ELSE 0.0 END AS ru, CASE WHEN cv > 0.0 THEN cv ELSE 0.0 END AS rv
WITH gds.graph.project($graph, u, v, {relationshipProperties: {cost: -log($eps + (ru + rv) / 2.0)}}) AS g
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount;

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
