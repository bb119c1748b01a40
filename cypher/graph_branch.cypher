// The graph branch's calls into the grasp procedures. Values are $parameters only; the plan travels as
// JSON text and is parsed and checked by the plugin, never spliced into Cypher.

// name: link_many
// Candidate nodes for many mentions at once: each row's vector against each label's name (or doc) index.
UNWIND $rows AS row
UNWIND $labels AS label
CALL grasp.link(row.vector, label, $mode, $k, $tau, $candidates) YIELD nodeId, name, score, degree
RETURN row.key AS key, label, nodeId, name, score, degree
ORDER BY key, score DESC;

// name: validate_plan
CALL grasp.plan.validate($plan) YIELD valid, errors, warnings
RETURN valid, errors, warnings;

// name: compile_plan
CALL grasp.plan.compile($plan, $bindings) YIELD query, params
RETURN query, params;

// name: execute_plan
CALL grasp.plan.execute($plan, $anchorVectors, $relevanceVector, $limit, $config)
  YIELD nodeId, name, anchorScore, denseScore, score, witness, exact
RETURN nodeId, name, anchorScore, denseScore, score, witness, exact;

// name: names_and_synonyms
// Every node of one label with its name and the values of its synonym properties (the name dictionary).
MATCH (n:{{label}})
RETURN n.id AS id, n.name AS name, [field IN $fields | n[field]] AS synonyms;

// name: nodes_by_id
// Name and degree of the given nodes of one label: candidates found outside Neo4j's vector indexes (by the
// text branch's own-text index), shown and ranked as grasp.link's are.
MATCH (n:{{label}})
WHERE n.id IN $ids
RETURN n.id AS id, n.name AS name, COUNT { (n)--() } AS degree;

// name: named_node_ids
// The ids of one label's nodes that have a name embedding (the name index's nodes), for sampling.
MATCH (n:{{label}})
WHERE n.name_embedding IS NOT NULL
RETURN n.id AS id
ORDER BY id;

// name: name_embeddings
// The names and name embeddings of the given nodes of one label.
MATCH (n:{{label}})
WHERE n.id IN $ids
RETURN n.id AS id, n.name AS name, n.name_embedding AS embedding;

// name: bank_loops
// Per training question of this SKB's Path-Bank, the meta-path of its cheapest path from a topic to an answer of
// the topic's own type; counted per route. The heuristic planner walks the route most of them took for an anchor
// of the asked type that the question gives no way back to its type (learned_loops.py).
MATCH (:AdaPathBank {skb: $skb})
MATCH (q:AdaPathQuery)-[u:ADAPATH_USES]->(m:AdaPathMetaPath)
WHERE m.start_label = m.answer_label AND m.hops > 0
WITH q, m ORDER BY u.cost, m.hops, m.signature
WITH q, collect(m)[0] AS first
WITH first, count(q) AS questions
RETURN first.labels AS labels, first.relations AS relations, first.outgoing AS outgoing, questions
ORDER BY questions DESC, first.signature;
