// What the reranker reads: each candidate's document rendered for THIS query. Values are $parameters;
// {{label}} is an identifier filled only by grasp_agent.cypher_queries.fill_identifiers.

// name: candidate_documents
// Candidates of one label: name, the type's text fields in schema order, and per (relation, direction, other
// label) the neighbour names most similar to the query first (cosine of name_embedding), at most $max_names,
// with the group's total. A neighbour without an embedding sorts last.
UNWIND $ids AS node_id
MATCH (n:{{label}} {id: node_id})
CALL (n) {
  MATCH (n)-[r]-(m)
  WITH type(r) AS relation, startNode(r) = n AS outgoing, head(labels(m)) AS other_label, m.name AS name,
       coalesce(vector.similarity.cosine(m.name_embedding, $vector), -2.0) AS similarity
  ORDER BY similarity DESC, name
  WITH relation, outgoing, other_label, collect(name) AS names
  RETURN collect({relation: relation, outgoing: outgoing, other_label: other_label,
                  names: names[..$max_names], total: size(names)}) AS groups
}
RETURN n.id AS id, n.name AS name, [field IN $fields | n[field]] AS values, groups;
